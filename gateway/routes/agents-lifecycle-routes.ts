/** Creating agents: a new one from a configuration, or one restored from a snapshot (import). */
import { createRoute } from '@hono/zod-openapi';
import type { AgentClient } from '../../client/agent-client';
import { modelWarning } from '../../client/model-warning';
import { ImportAgentBody, StartAgentBody, StartedAgent } from '../api-schemas';
import { HttpError } from '../http-errors';
import { type ApiApp, errorResponses, jsonBody, jsonResponse } from '../openapi';

const TAG = ['agents'];

export const startAgent = createRoute({
  method: 'post',
  path: '/agents',
  tags: TAG,
  summary: 'Start a new agent (409 if one with this id is running); `warning` says at once when no worker can call its model',
  request: { body: jsonBody(StartAgentBody) },
  responses: { 201: jsonResponse(StartedAgent, 'Started.'), ...errorResponses(403, 409, 415) },
});

export const importAgent = createRoute({
  method: 'post',
  path: '/agents/import',
  tags: TAG,
  summary: 'Start an agent from a snapshot (GET /agents/{id}/export); its pending approvals are asked again',
  request: { body: jsonBody(ImportAgentBody) },
  responses: { 201: jsonResponse(StartedAgent, 'Imported and running.'), ...errorResponses(403, 409, 413, 415) },
});

export function mountAgentLifecycleRoutes(api: ApiApp, agents: AgentClient): void {
  api.openapi(startAgent, async (c) => {
    const { agentId, ...options } = c.req.valid('json');
    const handle = await agents.start(agentId, options);
    // Started all the same (a worker may be given the key later), but said now rather than at the first turn.
    const warning = await modelWarning(agents, agentId, options.model, agents.taskQueue, {
      otherModel: `POST /agents/${agentId}/configure {"model": "provider:model"}`,
      retry: `POST /agents/${agentId}/retry`,
    });
    return c.json({ agentId, runId: handle.firstExecutionRunId, ...(warning ? { warning } : {}) }, 201);
  });

  api.openapi(importAgent, async (c) => {
    const { snapshot, agentId: given } = c.req.valid('json');
    const agentId = given ?? snapshot.sourceAgentId;
    if (!agentId) throw new HttpError(400, 'BAD_REQUEST', 'The snapshot names no agent (sourceAgentId): give the new agent an "agentId".');
    const handle = await agents.restore(agentId, snapshot);
    return c.json({ agentId, runId: handle.firstExecutionRunId }, 201);
  });
}
