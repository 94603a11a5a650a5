/** Time travel over REST: fork an agent at an entry, list an agent's forks, compare models on one turn. */
import { createRoute } from '@hono/zod-openapi';
import type { AgentClient } from '../../client/agent-client';
import { AgentPath } from '../api-schemas';
import { CompareBody, CompareResults, ForkBody, ForkList, ForkResultSchema } from '../fork-schemas';
import { type ApiApp, errorResponses, jsonBody, jsonResponse } from '../openapi';

const TAG = ['time travel'];

export const forkAgent = createRoute({
  method: 'post',
  path: '/agents/{id}/fork',
  tags: TAG,
  summary:
    "Start a new agent whose history is this one's up to entry `at` (a turn's end or an input), with its widgets as they were there and an empty workspace; the source is not changed (400 BAD_FORK_POINT with the reason, 409 if `as` runs already)",
  request: { params: AgentPath, body: jsonBody(ForkBody) },
  responses: { 201: jsonResponse(ForkResultSchema, 'Forked and running.'), ...errorResponses(403, 404, 409, 415) },
});

export const listForks = createRoute({
  method: 'get',
  path: '/agents/{id}/forks',
  tags: TAG,
  summary: 'The agents forked from this one, newest first, with the entry each was forked at',
  request: { params: AgentPath },
  responses: { 200: jsonResponse(ForkList, 'Its forks.'), ...errorResponses(403) },
});

export const compareModels = createRoute({
  method: 'post',
  path: '/agents/{id}/compare',
  tags: TAG,
  summary:
    'What-if: fork at input `at` once per model, run the turn on each and answer when all have ended, with each answer, its usage, cost and duration (the forks remain as agents)',
  request: { params: AgentPath, body: jsonBody(CompareBody) },
  responses: { 200: jsonResponse(CompareResults, 'Every fork has ended its turn.'), ...errorResponses(403, 404, 409, 415) },
});

export function mountAgentForkRoutes(api: ApiApp, agents: AgentClient): void {
  api.openapi(forkAgent, async (c) => {
    const { id } = c.req.valid('param');
    return c.json(await agents.fork(id, c.req.valid('json')), 201);
  });
  api.openapi(listForks, async (c) => c.json({ forks: await agents.forks(c.req.valid('param').id) }, 200));
  api.openapi(compareModels, async (c) => {
    const { id } = c.req.valid('param');
    return c.json({ results: await agents.compare(id, c.req.valid('json')) }, 200);
  });
}
