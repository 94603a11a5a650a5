/** Changing a running agent: tool-call decisions, configuration, retry, stop, reset. */
import { createRoute } from '@hono/zod-openapi';
import type { AgentClient } from '../../client/agent-client';
import {
  AgentPath,
  AgentStatusSchema,
  ApproveBody,
  ConfigureBody,
  DenyBody,
  ResetResult,
  ResolveBody,
  RetryResult,
  StopBody,
  StopResult,
  ToolCallPath,
} from '../api-schemas';
import { withStateWords } from '../../client/state-view';
import { type ApiApp, errorResponses, jsonBody, jsonResponse } from '../openapi';

const TAG = ['control'];
const STATUS_AFTER = "The agent's status after the change.";

export const approveToolCall = createRoute({
  method: 'post',
  path: '/agents/{id}/tool-calls/{toolCallId}/approve',
  tags: TAG,
  summary: 'Approve a tool call that waits for a person (409 if it is not pending)',
  request: { params: ToolCallPath, body: jsonBody(ApproveBody, false) },
  responses: { 200: jsonResponse(AgentStatusSchema, STATUS_AFTER), ...errorResponses(403, 404, 409, 415) },
});

export const denyToolCall = createRoute({
  method: 'post',
  path: '/agents/{id}/tool-calls/{toolCallId}/deny',
  tags: TAG,
  summary: 'Deny a tool call that waits for a person; the reason is shown to the model',
  request: { params: ToolCallPath, body: jsonBody(DenyBody, false) },
  responses: { 200: jsonResponse(AgentStatusSchema, STATUS_AFTER), ...errorResponses(403, 404, 409, 415) },
});

export const resolveToolCall = createRoute({
  method: 'post',
  path: '/agents/{id}/tool-calls/{toolCallId}/resolve',
  tags: TAG,
  summary: 'Resolve a tool call whose outcome is unknown: done, failed or retry (409 if it is not unknown or was resolved already)',
  request: { params: ToolCallPath, body: jsonBody(ResolveBody) },
  responses: { 200: jsonResponse(AgentStatusSchema, STATUS_AFTER), ...errorResponses(400, 403, 404, 409, 415) },
});

export const configureAgent = createRoute({
  method: 'post',
  path: '/agents/{id}/configure',
  tags: TAG,
  summary: 'Change model, tools, parameters or system instruction (clears a blocking error)',
  request: { params: AgentPath, body: jsonBody(ConfigureBody) },
  responses: { 200: jsonResponse(AgentStatusSchema, STATUS_AFTER), ...errorResponses(403, 404, 409, 415) },
});

export const retryAgent = createRoute({
  method: 'post',
  path: '/agents/{id}/retry',
  tags: TAG,
  summary: 'Try again the failed model call the agent is blocked on (nothing when it is not blocked)',
  request: { params: AgentPath },
  responses: { 202: jsonResponse(RetryResult, 'Sent (or nothing to retry).'), ...errorResponses(403, 404) },
});

export const stopAgent = createRoute({
  method: 'post',
  path: '/agents/{id}/stop',
  tags: TAG,
  summary: 'End the agent after its current step',
  request: { params: AgentPath, body: jsonBody(StopBody, false) },
  responses: { 202: jsonResponse(StopResult, 'Asked to stop.'), ...errorResponses(403, 404, 415) },
});

export const resetAgent = createRoute({
  method: 'post',
  path: '/agents/{id}/reset',
  tags: TAG,
  summary: 'Start over with an empty history, keeping the configuration and queued input',
  request: { params: AgentPath },
  responses: { 200: jsonResponse(ResetResult, 'Reset.'), ...errorResponses(403, 404, 409) },
});

export function mountAgentControlRoutes(api: ApiApp, agents: AgentClient): void {
  api.openapi(approveToolCall, async (c) => {
    const { id, toolCallId } = c.req.valid('param');
    const { by, door } = c.req.valid('json');
    return c.json(withStateWords(await agents.approve(id, toolCallId, by, door ?? 'rest')), 200);
  });

  api.openapi(denyToolCall, async (c) => {
    const { id, toolCallId } = c.req.valid('param');
    const { reason, by, door } = c.req.valid('json');
    return c.json(withStateWords(await agents.deny(id, toolCallId, reason, by, door ?? 'rest')), 200);
  });

  api.openapi(resolveToolCall, async (c) => {
    const { id, toolCallId } = c.req.valid('param');
    return c.json(withStateWords(await agents.resolveToolCall(id, { toolCallId, door: 'rest', ...c.req.valid('json') })), 200);
  });

  api.openapi(configureAgent, async (c) => c.json(withStateWords(await agents.configure(c.req.valid('param').id, c.req.valid('json'))), 200));

  api.openapi(retryAgent, async (c) => {
    // Asks the agent first: nothing is sent when it is not blocked by an error.
    return c.json({ retried: await agents.retryIfBlocked(c.req.valid('param').id) }, 202);
  });

  api.openapi(stopAgent, async (c) => {
    const { id } = c.req.valid('param');
    await agents.stop(id, c.req.valid('json').reason);
    return c.json({ stopping: true as const }, 202);
  });

  api.openapi(resetAgent, async (c) => {
    await agents.reset(c.req.valid('param').id);
    return c.json({ reset: true as const }, 200);
  });
}
