/**
 * The worker's cache of agent histories. A model call carries only a sequence bound; the entries the
 * worker lacks are fetched with the agent's `entries` query, so each entry crosses the wire about once
 * per worker instead of once per model call.
 */
import type { Client } from '@temporalio/client';
import type { HistoryEntry } from '../agent';
import { entriesQuery } from '../workflows/messages';

const MAX_AGENTS = 256;

export class EntryCache {
  // Map iteration order doubles as LRU order.
  private readonly byRun = new Map<string, HistoryEntry[]>();

  async entriesUpTo(client: Client, agentId: string, runId: string, uptoSeq: number): Promise<HistoryEntry[]> {
    const key = `${agentId}/${runId}`;
    const cached = this.byRun.get(key) ?? [];
    this.byRun.delete(key);
    let afterSeq = cached.length ? cached[cached.length - 1].seq : 0;
    const handle = client.workflow.getHandle(agentId, runId);
    while (afterSeq < uptoSeq) {
      const page = await handle.query(entriesQuery, { afterSeq, uptoSeq });
      cached.push(...page.entries);
      if (page.entries.length === 0 || page.nextAfterSeq === null) break;
      afterSeq = page.nextAfterSeq;
    }
    this.byRun.set(key, cached);
    if (this.byRun.size > MAX_AGENTS) this.byRun.delete(this.byRun.keys().next().value!);
    return cached.filter((e) => e.seq <= uptoSeq);
  }
}
