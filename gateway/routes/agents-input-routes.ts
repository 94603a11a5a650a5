/**
 * Input to an agent and the answer to it. A webhook sender's `Idempotency-Key` header (or the body's
 * `idempotencyKey`) makes a redelivery return the first delivery's inputSeq with `duplicate: true`: the
 * agent remembers the key in its own state, so this holds across gateways, worker restarts and
 * continue-as-new, with nothing kept here.
 */
import { createRoute } from '@hono/zod-openapi';
import { checkPlainInputKey } from '../../agent/index';
import type { AgentClient } from '../../client/agent-client';
import { AnswerPath, AgentPath, InputAccepted, InputAnswered, InputBody, InputHeaders, InputQuery, TurnOutcomeSchema } from '../api-schemas';
import { HttpError } from '../http-errors';
import { type ApiApp, errorResponses, jsonBody, jsonResponse } from '../openapi';

const TAG = ['input'];

export const sendInput = createRoute({
  method: 'post',
  path: '/agents/{id}/input',
  tags: TAG,
  summary: 'Input for the agent (text or sections), taken exactly once per idempotency key',
  description:
    'Answers once the agent accepted the input (202, with its inputSeq), or with ?wait=1 once the turn has ended (200, with its outcome). ' +
    "The `Idempotency-Key` header is the body's `idempotencyKey`: a delivery with a key the agent took before returns the first inputSeq with `duplicate: true` and starts no turn; " +
    "the same key with a different input is refused (409 IDEMPOTENCY_KEY_REUSED), and keys starting `ag-ui:` or `schedule:` are livecontext's own (400).",
  request: { params: AgentPath, query: InputQuery, headers: InputHeaders, body: jsonBody(InputBody) },
  responses: {
    202: jsonResponse(InputAccepted, 'Accepted (or taken before, `duplicate: true`).'),
    200: jsonResponse(InputAnswered, 'With ?wait=1: accepted, and the turn has ended.'),
    ...errorResponses(403, 404, 409, 413, 415),
  },
});

export const getAnswer = createRoute({
  method: 'get',
  path: '/agents/{id}/answers/{inputSeq}',
  tags: TAG,
  summary: 'Waits for the end of the turn of one input and answers its outcome',
  request: { params: AnswerPath },
  responses: {
    200: jsonResponse(
      TurnOutcomeSchema,
      'How the turn ended: answered (with the answer entry), ignored, error, stopped, reset, interrupted, asked or continued.',
    ),
    ...errorResponses(404),
  },
});

export function mountAgentInputRoutes(api: ApiApp, agents: AgentClient): void {
  api.openapi(sendInput, async (c) => {
    const { id } = c.req.valid('param');
    const { wait } = c.req.valid('query');
    const headerKey = c.req.valid('header')['idempotency-key'];
    const input = c.req.valid('json');
    if (headerKey && input.idempotencyKey && headerKey !== input.idempotencyKey) {
      throw new HttpError(400, 'IDEMPOTENCY_KEY_MISMATCH', "The Idempotency-Key header and the body's idempotencyKey differ: send one, or the same in both.");
    }
    checkPlainInputKey(headerKey ?? input.idempotencyKey);
    const keyed = headerKey ? { ...input, idempotencyKey: headerKey } : input;
    if (!wait) return c.json(await agents.send(id, keyed), 202);
    // One update for the input and its answer (send + waitForAnswer would be two, and five more history events).
    const { duplicate, ...outcome } = await (await agents.askTracked(id, keyed)).outcome;
    return c.json({ inputSeq: outcome.inputSeq, ...(duplicate ? { duplicate } : {}), outcome }, 200);
  });

  api.openapi(getAnswer, async (c) => {
    const { id, inputSeq } = c.req.valid('param');
    return c.json(await agents.waitForAnswer(id, inputSeq), 200);
  });
}
