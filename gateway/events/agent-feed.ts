/**
 * Follows an agent for an event stream, the way the console chat does (cli/turn-view.ts): every POLL_MS
 * it reads the history after its cursor, the running model call's partial output (from the worker's
 * stream endpoint when it can be read, else the call's heartbeat) and the agent's state,
 * and turns them into AG-UI events (derive-events.ts) and state changes (STATE_DELTA). It keeps only
 * what makes polling cheaper; a stream resumed from its cursor, on any gateway, needs nothing of it.
 */
import { EventType } from '@ag-ui/core';
import type { PartialOutput } from '../../activities/call-model';
import type { HistoryEntry, ToolCallRequest, TurnEndEntry } from '../../agent/index';
import type { AgentClient } from '../../client/agent-client';
import type { WorkflowExecutionDescription } from '@temporalio/client';
import { partialOutputOf } from '../../client/live-output';
import { sharedStreamReader } from '../../common/stream-channel/channel-reader';
import type { AgentStatus } from '../../workflows/messages';
import { type AgentStateView, agentStateView } from './agent-state-view';
import { type Cursor, cursorAt, streamingIsReal } from './cursor';
import { type Emitted, type StreamMode, blockedEvents, deriveEvents, openBatch, producedBy } from './derive-events';
import { jsonPatch } from './json-patch';

export const POLL_MS = 200;
/** Entries landed while looking: look again soon, not at once. */
const AGAIN_MS = 20;
/**
 * A turn has just moved (its history grew) and no model call's stream is followed yet: look for one this
 * often, so the stream is found before its first token (the call names it 100 ms after its request goes
 * out, see activities/model-call/stream-progress.ts). Such a look is a describe, not a billable action.
 */
const DISCOVER_MS = 25;
/** For this long after the history grows: past it, a tool or a model that streams nothing is waited for at POLL_MS. */
const DISCOVER_WINDOW_MS = 2_000;

/** What one look at the agent found. */
export interface Poll {
  emitted: Emitted[];
  status: AgentStatus;
  /** The history restarted (a reset, or a new agent under the id) since the cursor. */
  reset: boolean;
  /** Run mode: the entry that ended the run's turn (its answer, or a turn_end). */
  answeredSeq?: number;
  /** Run mode: the turn ended without an answer. */
  turnEnd?: TurnEndEntry;
  /** Run mode: the run's input never started a turn. */
  otherTurn?: boolean;
  /** More entries landed meanwhile. */
  behind: boolean;
}

export class AgentFeed {
  /** The entry at cursor.seq when it was read, to see a reset that regrew past the cursor between two looks. */
  private known: { seq: number; timestamp: string } | undefined;
  private batch: ToolCallRequest[] | undefined;
  private view: AgentStateView | undefined;
  /** The agent worked at the last look: only then can a model call be streaming. */
  private working = true;
  /**
   * The workflow's run and history length when the last look queried it, its state then, and whether
   * that look was caught up: while the history does not grow, neither entries nor state can change (both
   * change only in workflow tasks, which add events), so a look needs no query — each query is a billable
   * Temporal action, a describe is not.
   */
  private queried: { mark: string; status: AgentStatus; caughtUp: boolean } | undefined;
  /** The cursor came from a client, and says a message is streaming: checked at the first look. */
  private unverified: boolean;
  /** The partial output the last look read: while its stream is followed, its changes are pushed on at once. */
  private partial: PartialOutput | null = null;
  /** When a look last found the history grown. */
  private grewAt = 0;

  constructor(
    private readonly agents: AgentClient,
    readonly agentId: string,
    readonly mode: StreamMode,
    public cursor: Cursor,
    batch?: ToolCallRequest[],
    /** The cursor is a client's (Last-Event-ID), not one this gateway just made. */
    fromClient = false,
  ) {
    this.batch = batch;
    this.unverified = fromClient && cursor.streaming !== undefined;
  }

  /** STATE_SNAPSHOT of `status` (a stream's first state event, and after a reset). */
  snapshot(status: AgentStatus): Emitted {
    this.view = agentStateView(status, this.agentId);
    return { event: { type: EventType.STATE_SNAPSHOT, snapshot: this.view }, cursor: this.cursor };
  }

  /** STATE_DELTA from the state last sent to `status`, if it changed. State events do not move the cursor. */
  delta(status: AgentStatus): Emitted[] {
    const next = agentStateView(status, this.agentId);
    if (!this.view) return [this.snapshot(status)];
    const ops = jsonPatch(this.view, next);
    this.view = next;
    return ops.length ? [{ event: { type: EventType.STATE_DELTA, delta: ops }, cursor: this.cursor }] : [];
  }

  /** One look: the events after the cursor (the cursor moves past them). */
  async poll(): Promise<Poll> {
    const { agents, agentId } = this;
    const desc = await agents
      .handle(agentId)
      .describe()
      .catch(() => undefined);
    const mark = desc && markOf(desc);
    if (desc && mark !== undefined && this.queried?.mark === mark) return this.pollPartial(this.queried, desc);
    const start = this.cursor;
    // One entry before the cursor too, when known: if it is not the one seen there, history restarted.
    const overlap = this.known && this.known.seq === start.seq && start.seq >= 1;
    // One page (at most ~1 MB): a stream from the start of a long history, or one whose client reads
    // slowly, holds a page at a time, not the history; it is `behind` and looks again at once.
    const fetched = (await agents.entries(agentId, { afterSeq: overlap ? start.seq - 1 : start.seq })).entries;
    // In this order: a partial output read before the state belongs to a call after every entry the state
    // counts, so if the state counts no entry beyond those read, the text follows them.
    const partial: PartialOutput | null = this.working ? await agents.partialOutput(agentId).catch(() => null) : null;
    const status = await agents.state(agentId);
    this.working = status.blockedOn === null;
    this.partial = partial;
    this.grewAt = Date.now();
    const seen = overlap ? fetched[0] : undefined;
    const regrown = overlap && (seen?.seq !== start.seq || seen.timestamp !== this.known!.timestamp);
    if (status.lastSeq < start.seq || regrown) {
      this.known = undefined;
      this.batch = undefined;
      this.queried = undefined;
      return { emitted: [], status, reset: true, behind: true };
    }
    const entries = fetched.filter((e) => e.seq > start.seq);
    if (this.unverified) {
      this.unverified = false;
      // The next entry that ends what streams (an output, an input after an interrupt, a turn's end) tells which call it was.
      const next = entries.find((e) => e.kind === 'model_output' || e.kind === 'model_input' || e.kind === 'turn_end');
      const by = next?.kind === 'model_output' ? producedBy(next) : next ? { callId: '\u0000none', attempt: 0 } : undefined;
      if (start.streaming && !streamingIsReal(start.streaming, by, partial)) {
        const { streaming: _made_up, ...rest } = start;
        return this.pollFrom(rest, entries, partial, status, mark);
      }
    }
    return this.pollFrom(start, entries, partial, status, mark);
  }

  /** The rest of a look, from `start`, with what it read. */
  private pollFrom(start: Cursor, entries: HistoryEntry[], partial: PartialOutput | null, status: AgentStatus, mark: string | undefined): Poll {
    const lastRead = entries.length ? entries[entries.length - 1].seq : start.seq;
    const caughtUp = status.lastSeq === lastRead;
    const result = deriveEvents({
      mode: this.mode,
      cursor: start,
      entries,
      batch: this.batch,
      partial: caughtUp ? partial : null,
      subAgents: status.config.subAgents,
    });
    this.cursor = result.cursor;
    this.remember(entries);
    // The mark was read before the queries, so what they saw is at least that history: if the next look
    // finds the same mark, nothing changed since. A look that ends a run or is behind always queries again.
    this.queried = mark !== undefined && !result.answeredSeq && !result.otherTurn && !result.turnEnd && caughtUp ? { mark, status, caughtUp } : undefined;
    return {
      emitted: result.emitted,
      status,
      reset: false,
      behind: status.lastSeq > this.cursor.seq && !result.answeredSeq && !result.otherTurn,
      ...(result.answeredSeq ? { answeredSeq: result.answeredSeq } : {}),
      ...(result.turnEnd ? { turnEnd: result.turnEnd } : {}),
      ...(result.otherTurn ? { otherTurn: true } : {}),
    };
  }

  /** A look while the history stands still: only the running call's partial output can have moved. */
  private async pollPartial(last: { status: AgentStatus; caughtUp: boolean }, desc: WorkflowExecutionDescription): Promise<Poll> {
    const partial = this.working && last.caughtUp ? await partialOutputOf(this.agents.client, desc).catch(() => null) : null;
    this.partial = partial;
    const result = deriveEvents({ mode: this.mode, cursor: this.cursor, entries: [], batch: this.batch, partial });
    this.cursor = result.cursor;
    return { emitted: result.emitted, status: last.status, reset: false, behind: false };
  }

  /**
   * Waits `ms` before the next look (or until `signal` aborts), meanwhile passing on each change of the
   * followed model stream as it arrives, from the stream alone: no Temporal call, and a token goes out
   * when the worker publishes it rather than at the next look. Until a stream is followed, a turn that
   * has just moved is looked at every DISCOVER_MS for a model call naming its stream (a describe, not a
   * billable action; entries and state are still read at the looks, so these cost no query).
   */
  async *between(ms: number, signal: AbortSignal): AsyncGenerator<Emitted> {
    const until = Date.now() + ms;
    for (;;) {
      const left = until - Date.now();
      if (left <= 0 || signal.aborted) return;
      // Only while the last look was caught up with a working agent: the output then follows every entry read.
      const live = this.working && this.queried?.caughtUp;
      const change = live ? sharedStreamReader.nextChange(this.partial) : undefined;
      let partial: PartialOutput | null;
      if (change) {
        let changed = false;
        await pause(
          left,
          signal,
          change.then(() => void (changed = true)),
        );
        if (!changed || signal.aborted) return;
        partial = sharedStreamReader.latest(this.partial);
      } else if (live && Date.now() - this.grewAt < DISCOVER_WINDOW_MS) {
        await pause(Math.min(DISCOVER_MS, left), signal);
        if (signal.aborted) return;
        const desc = await this.agents
          .handle(this.agentId)
          .describe()
          .catch(() => undefined);
        // The history moved: a call running now may follow entries not read yet, so it waits for the next
        // look, which reads them first (when it would anyway: looking sooner would cost queries).
        if (!desc || markOf(desc) !== this.queried?.mark) {
          await pause(until - Date.now(), signal);
          return;
        }
        partial = await partialOutputOf(this.agents.client, desc).catch(() => null);
      } else {
        await pause(left, signal);
        return;
      }
      this.partial = partial;
      const result = deriveEvents({ mode: this.mode, cursor: this.cursor, entries: [], batch: this.batch, partial });
      this.cursor = result.cursor;
      yield* result.emitted;
    }
  }

  /** Events that end the open run because the agent is blocked (see blockedEvents); the cursor moves past them. */
  blocked(error: { message: string; code: string }): Emitted[] {
    const r = blockedEvents(this.mode, this.cursor, error);
    this.cursor = r.cursor;
    return r.emitted;
  }

  /** After a reset: from the start of the new history, announced by a CUSTOM event. */
  restart(): Emitted[] {
    const ended = this.blocked({ message: 'The agent was reset: its history starts over.', code: 'RESET' });
    this.cursor = cursorAt(0);
    return [...ended, { event: { type: EventType.CUSTOM, name: 'livecontext.reset', value: { agentId: this.agentId } }, cursor: this.cursor }];
  }

  /** Whether the agent's workflow has ended (asked only while it says it is stopping). */
  async ended(status: AgentStatus): Promise<boolean> {
    if (!status.stopping) return false;
    const desc = await this.agents.handle(this.agentId).describe();
    return desc.status.name !== 'RUNNING';
  }

  private remember(entries: readonly HistoryEntry[]): void {
    const at = entries.find((e) => e.seq === this.cursor.seq);
    if (at) this.known = { seq: at.seq, timestamp: at.timestamp };
    const batch = openBatch(entries);
    if (batch) this.batch = batch;
    else if (entries.some((e) => e.kind === 'tool_results' || e.kind === 'model_input' || e.kind === 'turn_end')) this.batch = undefined;
  }
}

/** The workflow's run and history length: while it stays, neither entries nor state change. */
const markOf = (d: WorkflowExecutionDescription) => `${d.runId}/${d.historyLength}`;

/** How long to wait before the next look. */
export const nextPollIn = (p: Pick<Poll, 'behind'>) => (p.behind ? AGAIN_MS : POLL_MS);

/** Resolves after `ms`, or at once when `signal` aborts (or `early` settles). */
export function pause(ms: number, signal: AbortSignal, early?: Promise<void>): Promise<void> {
  return new Promise((resolve) => {
    if (signal.aborted) return resolve();
    const timer = setTimeout(done, ms);
    signal.addEventListener('abort', done, { once: true });
    early?.then(done, done);
    function done() {
      clearTimeout(timer);
      signal.removeEventListener('abort', done);
      resolve();
    }
  });
}

/** The error the agent is blocked by, as RUN_ERROR tells it. */
export function errorOf(status: AgentStatus): { message: string; code: string } | null {
  return status.lastError ? { message: status.lastError.message, code: status.lastError.code } : null;
}
