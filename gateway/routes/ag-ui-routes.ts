/**
 * AG-UI over HTTP: POST a `RunAgentInput`, get the run's events as SSE (events/ag-ui-run). The newest
 * user message is the input, sent with the idempotency key `ag-ui:<runId>`, so a repeated POST of the
 * same run (a client that reconnects, with or without `Last-Event-ID`) never starts a second turn: it
 * follows the first one. A client that speaks AG-UI 1.0 gets a run that ends with the interrupt outcome
 * at the agent's waits, and answers them with a run whose `resume` entries name them (ag-ui-resume.ts).
 * `POST /ag-ui` takes the agent from `threadId` (AG-UI's HttpAgent posts every
 * run to one URL); `POST /agents/:id/ag-ui` from the path.
 */
import { createHash } from 'node:crypto';
import { type RunAgentInput, contentHasMedia, contentToText } from '@ag-ui/core';
import { RunAgentInputSchema } from '@ag-ui/core/schemas';
import type { Context, Hono } from 'hono';
import type { AgentInput } from '../../agent/index';
import { agUiRun } from '../events/ag-ui-run';
import { resumeRun } from './ag-ui-resume';
import { cursorAt } from '../events/cursor';
import { sseOptions, sseResponse } from '../events/sse';
import type { GatewayEnv, GatewayOptions } from '../gateway-app';
import { HttpError, requireAgentId } from '../http-errors';
import { lastEventCursor } from './events-routes';

/** The idempotency key of a run's input (at most 200 characters, as AgentInput allows). */
export function runInputKey(runId: string): string {
  const key = `ag-ui:${runId}`;
  return key.length <= 200 ? key : `ag-ui:sha256:${createHash('sha256').update(runId).digest('hex')}`;
}

/** The agent input of a run: its last user message, as text. */
export function runInput(run: RunAgentInput): AgentInput {
  const message = [...run.messages].reverse().find((m) => m.role === 'user');
  if (!message || message.role !== 'user') throw new HttpError(400, 'NO_USER_MESSAGE', 'The run has no user message to send to the agent.');
  if (contentHasMedia(message.content)) throw new HttpError(400, 'UNSUPPORTED_CONTENT', 'Only text parts of a user message can be sent to the agent.');
  return {
    text: contentToText(message.content),
    idempotencyKey: runInputKey(run.runId),
    ...(message.name ? { sender: message.name.slice(0, 200) } : {}),
  };
}

/** A client that says it speaks AG-UI 1.0 or later (RunAgentInput.protocolVersion) gets runs that end with interrupts. */
export const speaksInterrupts = (run: RunAgentInput) => Number(/^(\d+)(\.|$)/.exec(run.protocolVersion ?? '')?.[1] ?? 0) >= 1;

async function readRun(c: Context): Promise<RunAgentInput> {
  const parsed = RunAgentInputSchema.safeParse(await c.req.json());
  if (!parsed.success) throw new HttpError(400, 'BAD_REQUEST', 'The body is not an AG-UI RunAgentInput.', parsed.error.issues);
  return parsed.data as RunAgentInput;
}

export function mountAgUiRoutes(app: Hono<GatewayEnv>, options: GatewayOptions): void {
  const { agents } = options;
  const log = options.log ?? ((m: string) => console.error(m));
  const run = (agentOf: (c: Context, run: RunAgentInput) => string) => async (c: Context) => {
    const body = await readRun(c);
    const agentId = agentOf(c, body);
    if (body.resume?.length) return sseResponse(c, await resumeRun(agents, agentId, body), sseOptions(options, log));
    const input = runInput(body);
    const resumeAt = lastEventCursor(c.req.header('last-event-id'));
    // Read before sending: the input's turn comes after every entry there is now.
    const before = await agents.state(agentId); // 404 for an unknown agent, before the stream starts
    // One update for the input and its turn's outcome (send + waitForAnswer would be two).
    const asked = await agents.askTracked(agentId, input);
    asked.outcome.catch(() => undefined); // the run's feed says what went wrong
    const { inputSeq, duplicate } = await asked.accepted();
    // A repeated run without a cursor looks for its input's turn from the start of history.
    const cursor = resumeAt ?? cursorAt(duplicate ? 0 : before.lastSeq);
    return sseResponse(
      c,
      (signal) =>
        agUiRun({
          agents,
          agentId,
          threadId: body.threadId,
          runId: body.runId,
          inputSeq,
          outcome: asked.outcome,
          cursor,
          resumed: resumeAt !== undefined,
          interrupts: speaksInterrupts(body),
          signal,
        }),
      sseOptions(options, log),
    );
  };
  app.post(
    '/agents/:id/ag-ui',
    run((c) => requireAgentId(c.req.param('id'), "path's agent id")),
  );
  app.post(
    '/ag-ui',
    run((_c, body) => requireAgentId(body.threadId, 'threadId (the agent id)')),
  );
}
