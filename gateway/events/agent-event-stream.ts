/**
 * GET /agents/:id/events: the agent's AG-UI events across turns, for as long as the client listens. Each
 * turn is a run (`turn-<inputSeq>`); a reset sends CUSTOM `livecontext.reset` and a new STATE_SNAPSHOT,
 * and the stream goes on from the new history's start.
 */
import { EventType } from '@ag-ui/core';
import type { AgentClient } from '../../client/agent-client';
import { AgentFeed, errorOf, nextPollIn } from './agent-feed';
import { type Cursor, cursorAt } from './cursor';
import { type Emitted, type StreamMode, openBatch, openTurn, turnRunId } from './derive-events';

export interface AgentEventsOptions {
  agents: AgentClient;
  agentId: string;
  /** Resume after this cursor (a Last-Event-ID). */
  cursor?: Cursor;
  /** Or start after this entry (default: the agent's last, i.e. from now). */
  after?: number;
  signal: AbortSignal;
}

/** How far back to look for the input of a turn open where a stream starts, before reading all history. */
const TURN_WINDOW = 50;

export async function* agentEvents(o: AgentEventsOptions): AsyncGenerator<Emitted> {
  const { agents, agentId, signal } = o;
  const mode: StreamMode = { kind: 'agent', threadId: agentId };
  let status = await agents.state(agentId);
  const feed = o.cursor
    ? new AgentFeed(agents, agentId, mode, o.cursor, undefined, true)
    : await freshFeed(agents, agentId, mode, Math.min(o.after ?? status.lastSeq, status.lastSeq));
  // A stream that starts inside a turn opens its run first, so the turn's end has a start.
  if (!o.cursor && feed.cursor.run) yield { event: { type: EventType.RUN_STARTED, threadId: agentId, runId: feed.cursor.run.runId }, cursor: feed.cursor };
  yield feed.snapshot(status);
  let failing = 0;
  while (!signal.aborted) {
    let wait: number;
    try {
      const poll = await feed.poll();
      status = poll.status;
      if (poll.reset) {
        yield* feed.restart();
        yield feed.snapshot(status);
        wait = 0;
        continue;
      }
      yield* poll.emitted;
      // The state first: a client learns why (lastError) before the run ends.
      yield* feed.delta(status);
      // Only an open run can end: a stopped agent's status is asked about once, not at every look. And only
      // once the entries the state counts are read: a state read just after the history may already be
      // blocked after steps the stream has yet to show (it would end the run early, then again after them).
      const open = feed.cursor.run && !feed.cursor.run.errored && !poll.behind;
      const error = open ? (errorOf(status) ?? ((await feed.ended(status)) ? { message: 'The agent stopped.', code: 'STOPPED' } : null)) : null;
      if (error) yield* feed.blocked(error);
      wait = nextPollIn(poll);
      failing = 0;
    } catch {
      // The agent cannot be read for now (no worker, Temporal away): the stream waits, the client stays.
      wait = Math.min(5_000, 500 * 2 ** failing++);
    }
    yield* feed.between(wait, signal); // the followed model stream's output as it comes
  }
}

/** A feed starting after entry `after`: with the run of a turn open there, and its tool batch. */
async function freshFeed(agents: AgentClient, agentId: string, mode: StreamMode, after: number): Promise<AgentFeed> {
  if (after <= 0) return new AgentFeed(agents, agentId, mode, cursorAt(0));
  let window = (await agents.history(agentId, Math.max(0, after - TURN_WINDOW))).filter((e) => e.seq <= after);
  let turn = openTurn(window);
  if (turn === 'unknown') {
    window = (await agents.history(agentId, 0)).filter((e) => e.seq <= after);
    turn = openTurn(window);
  }
  const cursor: Cursor =
    turn && turn !== 'unknown' ? { ...cursorAt(after), run: { runId: turnRunId(turn.inputSeq, turn.seq), errored: false } } : cursorAt(after);
  return new AgentFeed(agents, agentId, mode, cursor, openBatch(window));
}
