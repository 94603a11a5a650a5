/**
 * The worker's cache of agents' working entries. A model call (or a seal) carries only a sequence range;
 * the entries the worker lacks are fetched with the agent's `entries` query, so each entry crosses the
 * wire about once per worker instead of once per model call — also across continue-as-new, which carries
 * the working set unchanged into the new run. When the agent's workflow runs on this worker too, it hands
 * the new entries over before each model call (`feed`, see workflows/entry-feed.ts) and no query is needed.
 *
 * Bounded in bytes, not in agents: per agent it keeps only what the last call needed onwards (entries
 * before that are archived or left behind by compaction), and the least recently used agents go first
 * when all of them pass `maxBytes` (LIVECONTEXT_ENTRY_CACHE_MB, default 64) — except an agent whose model
 * calls are local activities, held for ENTRY_HOLD_MS after each (such a call cannot query what it lacks;
 * its workflow, cached on this worker, holds the same entries meanwhile).
 */
import { isDeepStrictEqual } from 'node:util';
import { ApplicationFailure } from '@temporalio/common';
import type { Client } from '@temporalio/client';
import { type HistoryEntry, entryBytes } from '../agent/index';
import { ENTRY_HOLD_MS, type EntryFeed } from '../workflows/entry-feed';
import { entriesQuery } from '../workflows/messages';

const DEFAULT_MAX_BYTES = 64 * 1024 * 1024;

/** A local model call's entries were not all in this worker's cache (its workflow then hands over the whole run). */
const ENTRIES_NOT_CACHED = 'EntriesNotCached';

interface Cached {
  runId: string;
  /** Consecutive entries, in seq order. */
  entries: HistoryEntry[];
  bytes: number;
  /** Kept until then whatever the size bound: the agent calls its model locally (see EntryFeed.hold). */
  heldUntil?: number;
}

export class EntryCache {
  // Map iteration order doubles as LRU order.
  private readonly byAgent = new Map<string, Cached>();
  private totalBytes = 0;
  /** Entries received over the wire so far (what the cache exists to keep small). */
  fetchedEntries = 0;
  /** Entries handed over in-process by the agents' workflows (feeds taken). */
  fedEntries = 0;

  constructor(readonly maxBytes: number = cacheBytesFromEnv()) {}

  /** Bytes held for every agent (entries' JSON). */
  get bytes(): number {
    return this.totalBytes;
  }

  /**
   * Entries a run on this worker appended, taken only where they continue what is cached for that run
   * (or for the run it continued from): a feed that does not link up is dropped, and the next call
   * queries what it lacks, so a feed can save a query but never make the entries wrong.
   */
  feed(agentId: string, feed: EntryFeed): void {
    const cached = this.byAgent.get(agentId);
    const lastSeq = cached?.entries.length ? cached.entries[cached.entries.length - 1].seq : 0;
    const sameHistory = cached !== undefined && (cached.runId === feed.runId || cached.runId === feed.continuedFromRunId);
    let next: Cached;
    let taken: number;
    if (feed.afterSeq === 0) {
      next = { runId: feed.runId, entries: [...feed.entries], bytes: sizeOf(feed.entries) }; // the whole of the run's entries
      taken = feed.entries.length;
    } else if (sameHistory && links(cached.entries, lastSeq, feed)) {
      const fresh = feed.entries.filter((e) => e.seq > lastSeq);
      cached.entries.push(...fresh);
      next = { runId: feed.runId, entries: cached.entries, bytes: cached.bytes + sizeOf(fresh) };
      taken = fresh.length;
    } else {
      return;
    }
    next.heldUntil = feed.hold ? Date.now() + ENTRY_HOLD_MS : cached?.heldUntil;
    this.fedEntries += taken;
    this.remember(agentId, next);
  }

  /**
   * The agent's working entries with `afterSeq` < seq ≤ `uptoSeq`, from the cache and, for what it lacks,
   * the `entries` query. Entries at or before `afterSeq` are dropped from the cache: the next call of
   * this agent starts there or later. A page that starts later than asked (those entries are archived)
   * is returned as it is: the caller reads the archive for them. `local`: the caller is a local activity
   * of the agent's own workflow task, which a query would wait for: what is not cached is an error.
   */
  async range(client: Client, agentId: string, runId: string, afterSeq: number, uptoSeq: number, local = false): Promise<HistoryEntry[]> {
    const handle = client.workflow.getHandle(agentId, runId);
    const carried = await this.carried(handle, agentId, runId, local);
    // What is cached must start at or before the range: otherwise start over from the query.
    let entries = carried.entries.length && carried.entries[0].seq > afterSeq + 1 ? [] : carried.entries;
    let bytes = entries.length ? carried.bytes : 0;
    const start = entries.findIndex((e) => e.seq > afterSeq);
    const dropped = start < 0 ? entries.length : start;
    if (dropped) {
      bytes -= sizeOf(entries.slice(0, dropped));
      entries = entries.slice(dropped);
    }
    let fetchAfter = entries.length ? entries[entries.length - 1].seq : afterSeq;
    if (local && fetchAfter < uptoSeq) {
      this.remember(agentId, carried);
      throw ApplicationFailure.nonRetryable(
        `This worker's entry cache lacks entries ${fetchAfter + 1}–${uptoSeq} of agent "${agentId}" for a local model call; the next call hands them over again.`,
        ENTRIES_NOT_CACHED,
      );
    }
    while (fetchAfter < uptoSeq) {
      const page = await handle.query(entriesQuery, { afterSeq: fetchAfter, uptoSeq });
      this.fetchedEntries += page.entries.length;
      if (page.entries.length && page.entries[0].seq !== fetchAfter + 1 && entries.length) {
        // Archived meanwhile: what the query returns is the working set, which is all there is to keep.
        entries = [];
        bytes = 0;
      }
      entries.push(...page.entries);
      bytes += sizeOf(page.entries);
      if (page.entries.length === 0 || page.nextAfterSeq === null) break;
      fetchAfter = page.nextAfterSeq;
    }
    this.remember(agentId, { runId, entries, bytes, heldUntil: carried.heldUntil });
    return entries.filter((e) => e.seq <= uptoSeq);
  }

  /** Most recently used last; the least recently used agents go while the cache holds more than maxBytes. */
  private remember(agentId: string, cached: Cached): void {
    this.forget(agentId);
    this.byAgent.set(agentId, cached);
    this.totalBytes += cached.bytes;
    if (this.totalBytes <= this.maxBytes) return;
    const now = Date.now();
    for (const [id, held] of this.byAgent) {
      if (this.totalBytes <= this.maxBytes || id === agentId) break;
      if (held.heldUntil === undefined || held.heldUntil <= now) this.forget(id);
    }
  }

  private forget(agentId: string): Cached | undefined {
    const cached = this.byAgent.get(agentId);
    if (!cached) return undefined;
    this.byAgent.delete(agentId);
    this.totalBytes -= cached.bytes;
    return cached;
  }

  /**
   * The cached entries still valid for `runId`. A new run of the same agent holds the same entries when
   * it continued as new; after a reset (or a Temporal reset to an earlier point) it does not. Comparing
   * the newest cached entry — its sequence number and timestamp included — with the run's tells them apart
   * (by value: a carried entry was parsed again, so its keys may come in another order).
   */
  private async carried(handle: ReturnType<Client['workflow']['getHandle']>, agentId: string, runId: string, local: boolean): Promise<Cached> {
    const none: Cached = { runId, entries: [], bytes: 0 };
    const cached = this.forget(agentId);
    if (!cached?.entries.length) return none;
    if (cached.runId === runId) return cached;
    if (local) return none; // a local call's run hands over its entries before the call (see EntryFeed.hold)
    const last = cached.entries[cached.entries.length - 1];
    const page = await handle.query(entriesQuery, { afterSeq: last.seq - 1, uptoSeq: last.seq });
    this.fetchedEntries += page.entries.length;
    const same = page.entries.length === 1 && isDeepStrictEqual(page.entries[0], last);
    return same ? cached : none;
  }
}

/**
 * Whether a feed continues the cached entries: it starts where they end, or it overlaps their end (a
 * continued run's first feed repeats what it carried since its last model call) and agrees with the
 * newest cached entry, sequence number and timestamp.
 */
function links(cached: readonly HistoryEntry[], lastSeq: number, feed: EntryFeed): boolean {
  if (feed.afterSeq === lastSeq) return true;
  if (feed.afterSeq > lastSeq || !cached.length) return false;
  const same = feed.entries.find((e) => e.seq === lastSeq);
  const last = cached[cached.length - 1];
  return same !== undefined && same.timestamp === last.timestamp && same.kind === last.kind;
}

function sizeOf(entries: readonly HistoryEntry[]): number {
  let bytes = 0;
  for (const e of entries) bytes += entryBytes(e);
  return bytes;
}

function cacheBytesFromEnv(env: NodeJS.ProcessEnv = process.env): number {
  const mb = Number(env.LIVECONTEXT_ENTRY_CACHE_MB);
  return Number.isFinite(mb) && mb > 0 ? mb * 1024 * 1024 : DEFAULT_MAX_BYTES;
}
