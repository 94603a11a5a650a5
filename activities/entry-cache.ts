/**
 * The worker's cache of agent histories. A model call carries only a sequence bound; the entries the
 * worker lacks are fetched with the agent's `entries` query, so each entry crosses the wire about once
 * per worker instead of once per model call — also across continue-as-new, which carries every entry
 * unchanged into the new run. When the agent's workflow runs on this worker too, it hands the new
 * entries over before each model call (`feed`, see workflows/entry-feed.ts) and no query is needed.
 */
import { isDeepStrictEqual } from 'node:util';
import type { Client } from '@temporalio/client';
import type { HistoryEntry } from '../agent/index';
import type { EntryFeed } from '../workflows/entry-feed';
import { entriesQuery } from '../workflows/messages';

const MAX_AGENTS = 256;

interface Cached {
  runId: string;
  entries: HistoryEntry[];
}

export class EntryCache {
  // Map iteration order doubles as LRU order.
  private readonly byAgent = new Map<string, Cached>();
  /** Entries received over the wire so far (what the cache exists to keep small). */
  fetchedEntries = 0;
  /** Entries handed over in-process by the agents' workflows (feeds taken). */
  fedEntries = 0;

  /**
   * Entries a run on this worker appended, taken only where they continue what is cached for that run
   * (or for the run it continued from): a feed that does not link up is dropped, and the next model
   * call queries what it lacks, so a feed can save a query but never make the entries wrong.
   */
  feed(agentId: string, feed: EntryFeed): void {
    const cached = this.byAgent.get(agentId);
    const lastSeq = cached?.entries.length ? cached.entries[cached.entries.length - 1].seq : 0;
    const sameHistory = cached !== undefined && (cached.runId === feed.runId || cached.runId === feed.continuedFromRunId);
    let entries: HistoryEntry[];
    if (feed.afterSeq === 0) {
      entries = [...feed.entries]; // the whole of the run's entries
    } else if (sameHistory && lastSeq === feed.afterSeq) {
      entries = cached.entries;
      entries.push(...feed.entries);
    } else {
      return;
    }
    this.fedEntries += feed.entries.length;
    this.remember(agentId, { runId: feed.runId, entries });
  }

  async entriesUpTo(client: Client, agentId: string, runId: string, uptoSeq: number): Promise<HistoryEntry[]> {
    const handle = client.workflow.getHandle(agentId, runId);
    const entries = await this.carried(handle, agentId, runId);
    let afterSeq = entries.length ? entries[entries.length - 1].seq : 0;
    while (afterSeq < uptoSeq) {
      const page = await handle.query(entriesQuery, { afterSeq, uptoSeq });
      entries.push(...page.entries);
      this.fetchedEntries += page.entries.length;
      if (page.entries.length === 0 || page.nextAfterSeq === null) break;
      afterSeq = page.nextAfterSeq;
    }
    this.remember(agentId, { runId, entries });
    return entries.filter((e) => e.seq <= uptoSeq);
  }

  /** Most recently used last; the least recently used agent goes past MAX_AGENTS. */
  private remember(agentId: string, cached: Cached): void {
    this.byAgent.delete(agentId);
    this.byAgent.set(agentId, cached);
    if (this.byAgent.size > MAX_AGENTS) this.byAgent.delete(this.byAgent.keys().next().value!);
  }

  /**
   * The cached entries still valid for `runId`. A new run of the same agent holds the same entries when
   * it continued as new; after a reset (or a Temporal reset to an earlier point) it does not. Comparing
   * the newest cached entry — its sequence number and timestamp included — with the run's tells them apart
   * (by value: a carried entry was parsed again, so its keys may come in another order).
   */
  private async carried(handle: ReturnType<Client['workflow']['getHandle']>, agentId: string, runId: string): Promise<HistoryEntry[]> {
    const cached = this.byAgent.get(agentId);
    this.byAgent.delete(agentId);
    if (!cached?.entries.length) return [];
    if (cached.runId === runId) return cached.entries;
    const last = cached.entries[cached.entries.length - 1];
    const page = await handle.query(entriesQuery, { afterSeq: last.seq - 1, uptoSeq: last.seq });
    this.fetchedEntries += page.entries.length;
    const same = page.entries.length === 1 && isDeepStrictEqual(page.entries[0], last);
    return same ? cached.entries : [];
  }
}
