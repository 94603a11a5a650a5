/**
 * The entries a model call needs, handed to the worker's entry cache in-process (a Temporal sink)
 * before the call is scheduled. A callModel activity on the same worker then finds them cached and
 * sends no `entries` query: a query is a workflow task of its own on the worker that hosts the agent
 * (and a round trip through the server) for every model call, which under load cost more worker time
 * than the turn's own workflow tasks. Nothing here reaches history or changes a command, so replays are
 * unaffected; a call on another worker, or after a restart, falls back to the query as before.
 */
import { proxySinks, workflowInfo, type Sinks } from '@temporalio/workflow';
import type { HistoryEntry } from '../agent/index';

/** The sink's name on the worker (createLivecontextWorker registers it). */
export const ENTRY_FEED_SINK = 'livecontextEntries';

/** Entries a run appended after `afterSeq` (0: all of the run's entries). */
export interface EntryFeed {
  runId: string;
  /** The run this one continued from (continue-as-new carries every entry unchanged; a reset carries none). */
  continuedFromRunId?: string;
  /** Seq of the entry before `entries[0]`: the cache takes them only when it ends exactly there. */
  afterSeq: number;
  entries: HistoryEntry[];
  /** For a local call: the cache keeps this agent's entries for at least ENTRY_HOLD_MS (see beforeModelCall). */
  hold?: boolean;
}

/**
 * How long the worker's entry cache keeps an agent's entries after a feed for a local call, whatever its
 * size bound. The workflow sends the whole run again once its last such feed is half this old.
 */
export const ENTRY_HOLD_MS = 10 * 60_000;

export interface EntryFeedSinks extends Sinks {
  [ENTRY_FEED_SINK]: { appended(feed: EntryFeed): void };
}

/**
 * A feeder for one run. `beforeModelCall` sends the entries appended since the last feed. While the run
 * replays history nothing is sent (the worker's cache may be anywhere): the first live feed then starts
 * after the replayed entries, the cache cannot link it, and that one call queries.
 */
export function entryFeed(entries: () => readonly HistoryEntry[]) {
  const { runId, continuedFromExecutionRunId } = workflowInfo();
  const sink = proxySinks<EntryFeedSinks>()[ENTRY_FEED_SINK];
  const lastSeq = () => {
    const all = entries();
    return all.length ? all[all.length - 1].seq : 0;
  };
  // A continued run carries entries the worker may have. The old run fed them up to its last model call
  // only: what came after (that call's output, tool results, the input that ended the run) was never fed.
  // So the first feed starts at the newest model output it carried; the cache takes the part it lacks.
  let fedUpTo = continuedFromExecutionRunId ? beforeNewestOutput(entries()) : lastSeq();
  /** Workflow time of this instance's last feed for a local call (none yet: the cache may hold nothing of this run). */
  let heldAt: number | undefined;
  const send = (afterSeq: number, fresh: HistoryEntry[], hold: boolean) =>
    sink.appended({
      runId,
      ...(continuedFromExecutionRunId ? { continuedFromRunId: continuedFromExecutionRunId } : {}),
      afterSeq,
      entries: fresh,
      ...(hold ? { hold } : {}),
    });
  return {
    /**
     * `local`: a local model call runs inside this run's workflow task, so an `entries` query it sent would
     * wait for that very task to end: the cache must hold every entry the call reads. The first such feed
     * of this workflow instance (a start, a replay: the cache may hold nothing of the run) hands over all
     * the run's entries (afterSeq 0), which the cache takes whatever it held; later ones only what is new,
     * as for a regular call, while the cache holds the agent (ENTRY_HOLD_MS, renewed by each such feed).
     * Sending the whole run every time cost each local call time in proportion to the agent's working set
     * (~4 ms at 1,200 entries: the copy between the threads and the cache's size count).
     */
    beforeModelCall(local = false): void {
      const all = entries();
      const upTo = all.length ? all[all.length - 1].seq : 0;
      if (workflowInfo().unsafe.isReplaying) {
        fedUpTo = upTo;
        return;
      }
      const now = Date.now();
      if (local && (heldAt === undefined || now - heldAt >= ENTRY_HOLD_MS / 2)) {
        send(0, all.slice(), true);
      } else if (upTo !== fedUpTo || local) {
        // Entries are in seq order: the fresh ones are a tail, found from the end.
        let i = all.length;
        while (i > 0 && all[i - 1].seq > fedUpTo) i--;
        send(fedUpTo, all.slice(i), local);
      }
      if (local) heldAt = now;
      fedUpTo = upTo;
    },
    /** A local call failed: the next one hands over the whole run again (whatever the cache lacked). */
    resendWhole(): void {
      heldAt = undefined;
    },
  };
}

/** The seq before the newest model output (0 when there is none): where the unfed tail of a carried run begins. */
function beforeNewestOutput(all: readonly HistoryEntry[]): number {
  for (let i = all.length - 1; i >= 0; i--) if (all[i].kind === 'model_output') return i > 0 ? all[i - 1].seq : 0;
  return 0;
}
