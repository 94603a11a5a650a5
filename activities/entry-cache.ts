/**
 * The worker's cache of agent histories. A model call carries only a sequence bound; the entries the
 * worker lacks are fetched with the agent's `entries` query, so each entry crosses the wire about once
 * per worker instead of once per model call — also across continue-as-new, which carries every entry
 * unchanged into the new run.
 */
import { isDeepStrictEqual } from 'node:util';
import type { Client } from '@temporalio/client';
import type { HistoryEntry } from '../agent';
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
    this.byAgent.set(agentId, { runId, entries });
    if (this.byAgent.size > MAX_AGENTS) this.byAgent.delete(this.byAgent.keys().next().value!);
    return entries.filter((e) => e.seq <= uptoSeq);
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
