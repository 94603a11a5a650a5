/**
 * A `RunAgentInput` with `resume` entries (AG-UI 1.0): it sends no input; each entry answers the wait its
 * interruptId names through the agent's one wait (door `ag-ui`, events/ag-ui-interrupts.ts says what a
 * payload is), then the run follows the turn that goes on — the same turn after an approval or an
 * unknown outcome (from just after the batch the previous run ended at), the reply's turn after a
 * question — to its end or its next interrupt. A wait answered first through another door (or by an
 * earlier resume) ends the run with RUN_ERROR `ALREADY_ANSWERED` naming who answered and when.
 */
import { EventType, type RunAgentInput } from '@ag-ui/core';
import type { AgentClient } from '../../client/agent-client';
import { AG_UI_DOOR, ResumeRefusal, resumeActions } from '../events/ag-ui-interrupts';
import { agUiRun } from '../events/ag-ui-run';
import { type Cursor, cursorAt } from '../events/cursor';
import type { Emitted } from '../events/derive-events';
import { toHttpError } from '../http-errors';

/** The events of a resume run; throws (before any event) only for an agent that cannot be read. */
export async function resumeRun(agents: AgentClient, agentId: string, run: RunAgentInput): Promise<(signal: AbortSignal) => AsyncGenerator<Emitted>> {
  const { threadId, runId } = run;
  const start: Emitted = { event: { type: EventType.RUN_STARTED, threadId, runId }, cursor: cursorAt(0) };
  const refused = (code: string, message: string) =>
    async function* (): AsyncGenerator<Emitted> {
      yield start;
      yield { event: { type: EventType.RUN_ERROR, message, code }, cursor: cursorAt(0) };
    };
  const status = await agents.state(agentId); // 404 for an unknown agent, before the stream starts
  let actions: ReturnType<typeof resumeActions>;
  try {
    actions = resumeActions(run.resume ?? []);
  } catch (err) {
    if (err instanceof ResumeRefusal) return refused(err.code, err.message);
    throw err;
  }
  /** The turn to follow, and where its events start. */
  let follow: { inputSeq: number; cursor: Cursor } | undefined;
  const answered: string[] = [];
  for (const a of actions) {
    if (a.answer) {
      try {
        const done = await agents.answerWait(agentId, a.waitId, a.answer, { door: AG_UI_DOOR, ...(a.by !== undefined ? { by: a.by } : {}) });
        answered.push(a.waitId);
        // A question's reply is the next input: its turn is the one to follow.
        if (done.inputSeq !== undefined) follow = { inputSeq: done.inputSeq, cursor: cursorAt(a.seq) };
      } catch (err) {
        const http = toHttpError(err, agentId);
        if (http.status >= 500) throw err;
        const before = answered.length ? ` (answered before it in this resume: ${answered.join(', ')})` : '';
        return refused(http.code, `${http.message}${before}`);
      }
    }
    // An approval or unknown outcome belongs to the running turn: follow it from just after its batch, its run open.
    if (a.kind !== 'question' && !follow)
      follow = { inputSeq: status.consumedInputSeq, cursor: { seq: a.seq, part: 0, run: { runId: 'run', errored: false } } };
  }
  if (!follow) {
    const left = actions.filter((a) => !a.answer).map((a) => a.waitId);
    return async function* () {
      yield start;
      yield { event: { type: EventType.RUN_FINISHED, threadId, runId, result: { answered, left } }, cursor: cursorAt(0) };
    };
  }
  const { inputSeq, cursor } = follow;
  const outcome = agents.waitForAnswer(agentId, inputSeq);
  outcome.catch(() => undefined); // the run's feed says what went wrong
  return (signal) => agUiRun({ agents, agentId, threadId, runId, inputSeq, outcome, cursor, resumed: false, interrupts: true, signal });
}
