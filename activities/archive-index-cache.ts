/**
 * The worker's copies of agents' archive indexes (the `archive` query), for model calls that need more
 * archived segments than the newest one their agent names. An index changes only when the agent seals
 * a segment, and a call says how far the archive reaches (`throughSeq`), so a copy is asked for again
 * only after a seal: about once per segment per worker.
 */
import type { Client } from '@temporalio/client';
import type { ArchiveIndex } from '../agent/index';
import { archiveQuery } from '../workflows/messages';

const MAX_AGENTS = 256;

export class ArchiveIndexCache {
  private readonly byAgent = new Map<string, ArchiveIndex>();

  /** `rewinds`: how many archived rewinds the caller knows of (a rewind changes the index, not its throughSeq). */
  async get(client: Client, agentId: string, runId: string, throughSeq: number, rewinds = 0): Promise<ArchiveIndex | undefined> {
    const cached = this.byAgent.get(agentId);
    this.byAgent.delete(agentId);
    const fresh = cached?.throughSeq === throughSeq && (cached.rewound?.length ?? 0) >= rewinds;
    const index = fresh ? cached : ((await client.workflow.getHandle(agentId, runId).query(archiveQuery)) ?? undefined);
    if (index) this.byAgent.set(agentId, index);
    if (this.byAgent.size > MAX_AGENTS) this.byAgent.delete(this.byAgent.keys().next().value!);
    return index;
  }
}
