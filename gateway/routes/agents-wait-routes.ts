/** Answering an agent's waits (approval, question, unknown outcome) and its tool rules (approval policy). */
import { createRoute } from '@hono/zod-openapi';
import type { AgentClient } from '../../client/agent-client';
import { withStateWords } from '../../client/state-view';
import { AgentPath, ToolRulesBody, ToolRulesResult, WaitAnswerRequest, WaitAnsweredSchema, WaitPath } from '../api-schemas';
import { type ApiApp, errorResponses, jsonBody, jsonResponse } from '../openapi';

const TAG = ['control'];

export const answerWait = createRoute({
  method: 'post',
  path: '/agents/{id}/waits/{waitId}',
  tags: TAG,
  summary:
    "Answer one of the waits the state lists (an approval, a question, an unknown outcome, an MCP server's question). The first answer wins: a later one, through any door, gets 409 ALREADY_ANSWERED naming who answered and when",
  request: { params: WaitPath, body: jsonBody(WaitAnswerRequest) },
  responses: { 200: jsonResponse(WaitAnsweredSchema, 'Answered.'), ...errorResponses(400, 403, 404, 409, 415) },
});

export const getToolRules = createRoute({
  method: 'get',
  path: '/agents/{id}/tool-rules',
  tags: TAG,
  summary: "The agent's tool rules (approval policy): allow, ask or deny by tool name and argument, first match wins",
  request: { params: AgentPath },
  responses: { 200: jsonResponse(ToolRulesResult, 'The rules in force.'), ...errorResponses(403, 404) },
});

export const setToolRules = createRoute({
  method: 'put',
  path: '/agents/{id}/tool-rules',
  tags: TAG,
  summary: "Replace the agent's tool rules at run time (recorded in its history as a tool_rules entry)",
  request: { params: AgentPath, body: jsonBody(ToolRulesBody) },
  responses: { 200: jsonResponse(ToolRulesResult, 'The rules now in force.'), ...errorResponses(400, 403, 404, 409, 415) },
});

export function mountAgentWaitRoutes(api: ApiApp, agents: AgentClient): void {
  api.openapi(answerWait, async (c) => {
    const { id, waitId } = c.req.valid('param');
    const { answer, by, door } = c.req.valid('json');
    const answered = await agents.answerWait(id, waitId, answer, { door: door ?? 'rest', ...(by !== undefined ? { by } : {}) });
    return c.json({ ...answered, status: withStateWords(answered.status) }, 200);
  });
  api.openapi(getToolRules, async (c) => c.json({ rules: await agents.toolRules(c.req.valid('param').id) }, 200));
  api.openapi(setToolRules, async (c) => {
    const { rules, by } = c.req.valid('json');
    return c.json(await agents.setToolRules(c.req.valid('param').id, rules, by !== undefined ? { by } : {}), 200);
  });
}
