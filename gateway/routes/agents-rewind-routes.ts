/** Time travel in place (issue 30): rewind an agent to an earlier point of its history. */
import { createRoute } from '@hono/zod-openapi';
import { z } from 'zod';
import type { AgentClient } from '../../client/agent-client';
import { AgentPath } from '../api-schemas';
import { type ApiApp, errorResponses, jsonBody, jsonResponse } from '../openapi';

const TAG = ['time travel'];

const RewindBody = z
  .object({
    toSeq: z.number().int().describe("The entry to go back to: a turn's end (an answer, or a turn_end) or a model input, whose turn then runs again"),
    by: z.string().max(200).optional().describe('Who rewinds (kept in the rewind entry)'),
    reason: z.string().max(2000).optional().describe('Why (kept in the rewind entry)'),
  })
  .strict()
  .meta({ id: 'Rewind' });
const RewindResult = z
  .object({
    seq: z.number().describe('The rewind entry'),
    toSeq: z.number(),
    runState: z.string().describe('WaitingInput after a turn end; PendingInput after a model input (its turn runs again)'),
    rewound: z.number().describe('Entries taken out of what is in force (they stay in history: `GET /agents/{id}/entries` marks them)'),
  })
  .meta({ id: 'RewindResult' });

export const rewindAgent = createRoute({
  method: 'post',
  path: '/agents/{id}/rewind',
  tags: TAG,
  summary: 'Take the agent back to an earlier entry, as if what followed had not happened (history keeps it)',
  description:
    "A `rewind` entry records it; the entries after `toSeq` leave the model's context, the widgets and the budgets; queued input is kept. " +
    'Made at rest only: 409 `AGENT_WORKING` while a turn runs (interrupt it first), 409 `BAD_REWIND_POINT` for a point that is not valid ' +
    '(the message names the nearest valid points), 409 `REWIND_ARCHIVED` once an agent has rewound into its archive 256 times (fork instead); an archived entry is read from its segment. Nothing changes when refused.',
  request: { params: AgentPath, body: jsonBody(RewindBody) },
  responses: { 200: jsonResponse(RewindResult, 'Rewound.'), ...errorResponses(403, 404, 409, 415) },
});

export function mountAgentRewindRoutes(api: ApiApp, agents: AgentClient): void {
  api.openapi(rewindAgent, async (c) => {
    const { id } = c.req.valid('param');
    const { toSeq, by, reason } = c.req.valid('json');
    return c.json(await agents.rewind(id, toSeq, { by: by ?? 'http', ...(reason !== undefined ? { reason } : {}) }), 200);
  });
}
