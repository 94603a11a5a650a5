/**
 * The AG-UI run of one input (POST /agents/:id/ag-ui): RUN_STARTED, the events of the input's turn from
 * its model_input on (it may wait behind another turn), state as it changes, then RUN_FINISHED when the
 * turn is answered, or RUN_ERROR when the agent is blocked by an error, stops or is reset.
 */
import { EventType, type RunFinishedOutcome } from '@ag-ui/core';
import { type OpenWait, type TurnEndEntry, type TurnOutcome, waitIdOf } from '../../agent/index';
import type { AgentClient } from '../../client/agent-client';
import { turnPhase } from '../../client/turn-phase';
import { interruptOf } from './ag-ui-interrupts';
import { AgentFeed, errorOf, nextPollIn } from './agent-feed';
import type { Cursor } from './cursor';
import { type Emitted, turnEndFinish } from './derive-events';

export interface AgUiRunOptions {
  agents: AgentClient;
  agentId: string;
  threadId: string;
  runId: string;
  /** The input this run sent (or, for a repeated POST, the one its first delivery sent). */
  inputSeq: number;
  /** How the input's turn ended, once it has (the `ask` that sent it): what history cannot say (dropped, stopped, reset). */
  outcome: Promise<TurnOutcome>;
  /** Where the run's events start: before the input's turn, or the Last-Event-ID of a resumed stream. */
  cursor: Cursor;
  /** A resumed stream: RUN_STARTED was sent already. */
  resumed: boolean;
  /**
   * The client speaks AG-UI 1.0 (its input has a protocolVersion): the run ends with the interrupt outcome
   * when the turn waits on a person (approval, unknown outcome) or ends with a question. Without it the
   * run stays open while a person answers elsewhere, and a question ends it as before (success).
   */
  interrupts: boolean;
  signal: AbortSignal;
}

/** How long the agent may stay unreadable before the run gives up with RUN_ERROR. */
const UNREADABLE_MS = 30_000;

export async function* agUiRun(o: AgUiRunOptions): AsyncGenerator<Emitted> {
  const { agents, agentId, threadId, runId, inputSeq, signal } = o;
  const feed = new AgentFeed(agents, agentId, { kind: 'run', threadId, inputSeq }, o.cursor, undefined, o.resumed);
  const here = () => feed.cursor;
  const finished = (result: Record<string, unknown>, outcome?: RunFinishedOutcome): Emitted => ({
    event: { type: EventType.RUN_FINISHED, threadId, runId, result, ...(outcome ? { outcome } : {}) },
    cursor: here(),
  });
  /** The run ends waiting on `waits`: each an Interrupt whose id a resume entry answers. */
  const interrupted = (waits: OpenWait[]): Emitted =>
    finished({ inputSeq, waits: waits.map((w) => w.waitId) }, { type: 'interrupt', interrupts: waits.map(interruptOf) });
  if (!o.resumed) yield { event: { type: EventType.RUN_STARTED, threadId, runId }, cursor: here() };
  yield feed.snapshot(await agents.state(agentId));

  // The turn's outcome, waited for server-side: it says what history cannot (dropped, stopped, reset).
  let outcome = undefined as TurnOutcome | undefined;
  o.outcome.then(
    (o) => (outcome = o),
    () => undefined, // the feed's own reads say what is wrong
  );

  let unreadableSince: number | undefined;
  while (!signal.aborted) {
    let wait: number;
    // The outcome as known before this look: the look then reads every entry of the turn it ends.
    const settled: TurnOutcome | undefined = outcome;
    try {
      const poll = await feed.poll();
      unreadableSince = undefined;
      if (poll.reset) {
        yield* feed.blocked({ message: 'The agent was reset before it answered.', code: 'RESET' });
        return;
      }
      yield* poll.emitted;
      yield* feed.delta(poll.status);
      if (poll.turnEnd && o.interrupts && poll.turnEnd.reason === 'ask_user') {
        yield interrupted([questionWait(poll.turnEnd)]);
        return;
      }
      if (poll.turnEnd) {
        const end = turnEndFinish(poll.turnEnd);
        yield finished({ inputSeq, ...end.result }, end.outcome);
        return;
      }
      if (poll.answeredSeq) {
        yield finished({ inputSeq, answerSeq: poll.answeredSeq });
        return;
      }
      const error = errorOf(poll.status);
      if (error) {
        yield* feed.blocked(error);
        return;
      }
      // Waiting on a person, every entry before the wait sent: a 1.0 client gets the interrupt outcome.
      const phase = o.interrupts && !poll.behind ? turnPhase(poll.status, inputSeq, undefined) : undefined;
      if (phase?.phase === 'waiting' && phase.waits.length) {
        yield interrupted(phase.waits);
        return;
      }
      if (o.interrupts && settled?.status === 'asked' && settled.waitId && !poll.behind) {
        const open = poll.status.waits?.find((w) => w.waitId === settled.waitId);
        yield interrupted([open ?? { waitId: settled.waitId, kind: 'question', openedAt: '', question: settled.question }]);
        return;
      }
      const end = settled && ending(settled, feed.cursor.seq, poll.behind);
      if (end && 'finished' in end) {
        yield finished({ inputSeq, ...end.finished }, end.outcome);
        return;
      }
      if (end) {
        yield* feed.blocked(end);
        return;
      }
      wait = nextPollIn(poll);
    } catch (err) {
      unreadableSince ??= Date.now();
      if (Date.now() - unreadableSince > UNREADABLE_MS) {
        yield* feed.blocked({ message: `The agent cannot be read: ${(err as Error).message.split('\n')[0]}`, code: 'UNAVAILABLE' });
        return;
      }
      wait = 1_000;
    }
    yield* feed.between(wait, signal); // the followed model stream's output as it comes
  }
}

/** The wait of the question a turn ended with. */
const questionWait = (e: TurnEndEntry): OpenWait => ({
  waitId: waitIdOf({ kind: 'question', seq: e.seq }),
  kind: 'question',
  openedAt: e.timestamp,
  question: e.question ?? '',
});

/**
 * What the turn's outcome means for the run once the stream has read what the outcome follows: finished
 * (answered at or before the cursor — a resumed stream past its last text —, dropped, or ended without an
 * answer, its turn_end read), or an error to end with; undefined while the stream has yet to get there.
 */
function ending(
  outcome: TurnOutcome,
  seq: number,
  behind: boolean,
): { finished: Record<string, unknown>; outcome?: { type: 'cancelled' } } | { message: string; code: string } | undefined {
  switch (outcome.status) {
    case 'answered':
      return outcome.answer.seq <= seq ? { finished: { answerSeq: outcome.answer.seq } } : undefined; // else the feed reaches it
    case 'ignored':
      return { finished: { ignored: outcome.reason } };
    case 'interrupted':
      return behind
        ? undefined
        : { finished: { ended: 'interrupted', ...(outcome.by !== undefined ? { by: outcome.by } : {}) }, outcome: { type: 'cancelled' } };
    case 'asked':
      return behind ? undefined : { finished: { ended: 'ask_user', question: outcome.question } };
    case 'error':
      return { message: outcome.error.message, code: outcome.error.code };
    case 'stopped':
      return { message: 'The agent stopped before it answered.', code: 'STOPPED' };
    case 'reset':
      return { message: 'The agent was reset before it answered.', code: 'RESET' };
    default:
      return undefined;
  }
}
