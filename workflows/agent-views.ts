/** Read-only views of an agent for queries: its status and pages of its history. */
import { type Agent, type HistoryEntry, utf8Length } from '../agent';
import type { AgentStatus, EntriesPage, EntriesRequest } from './messages';

const PAGE_MAX_ENTRIES = 500;
/** Well under gRPC's 4 MB message limit, whatever the entries hold. */
const PAGE_MAX_BYTES = 1024 * 1024;

export function describeAgent(agent: Agent, stopping: boolean, warning?: string): AgentStatus {
  const runState = agent.runState;
  const usage = { inputTokens: 0, outputTokens: 0, cachedInputTokens: 0, costUsd: 0, modelCalls: 0 };
  // Totals come only from recorded entries, so retries and replays never count twice.
  for (const e of agent.state.entries) {
    if (e.kind !== 'model_output') continue;
    usage.modelCalls += 1;
    usage.inputTokens += e.usage?.inputTokens ?? 0;
    usage.outputTokens += e.usage?.outputTokens ?? 0;
    usage.cachedInputTokens += e.usage?.cachedInputTokens ?? 0;
    usage.costUsd += e.usage?.costUsd ?? 0;
  }
  const awaiting = agent.awaitingApproval();
  return {
    runState,
    blockedOn: agent.lastError
      ? 'error'
      : runState === 'WaitingInput' && agent.inbox.length === 0
        ? 'input'
        : awaiting.length > 0 && !canRunNow(agent)
          ? 'approval'
          : null,
    awaitingApproval: awaiting.map((a) => ({
      toolCallId: a.call.toolCallId,
      toolName: a.call.toolName,
      arguments: a.call.rawArguments,
      reason: a.reason,
      requestedAt: a.requestedAt,
    })),
    config: agent.config,
    systemInstruction: agent.state.systemInstruction,
    notebook: agent.notebook.content,
    entryCount: agent.state.entries.length,
    lastSeq: agent.state.lastSeq,
    inboxLength: agent.inbox.length,
    nextInputSeq: agent.nextInputSeq,
    consumedInputSeq: agent.consumedInputSeq,
    pendingToolCalls: agent.pendingToolCalls(),
    pendingToolResultCount: agent.pendingToolResults.length,
    lastError: agent.lastError ?? null,
    usage,
    stopping,
    warning: warning ?? null,
  };
}

export function pageEntries(entries: readonly HistoryEntry[], req: EntriesRequest): EntriesPage {
  const afterSeq = req.afterSeq ?? 0;
  const uptoSeq = req.uptoSeq ?? Number.POSITIVE_INFINITY;
  const limit = Math.min(Math.max(req.limit ?? PAGE_MAX_ENTRIES, 1), PAGE_MAX_ENTRIES);
  const lastSeq = entries.length ? entries[entries.length - 1].seq : 0;
  const page: HistoryEntry[] = [];
  let bytes = 0;
  // Entries are in seq order; a binary search would do, but pages start near the end in practice.
  let i = entries.findIndex((e) => e.seq > afterSeq);
  if (i < 0) return { entries: [], nextAfterSeq: null, lastSeq };
  for (; i < entries.length && entries[i].seq <= uptoSeq; i++) {
    const size = utf8Length(JSON.stringify(entries[i]));
    if (page.length >= limit || (page.length > 0 && bytes + size > PAGE_MAX_BYTES)) break;
    page.push(entries[i]);
    bytes += size;
  }
  const more = i < entries.length && entries[i].seq <= uptoSeq;
  return { entries: page, nextAfterSeq: more ? page[page.length - 1].seq : null, lastSeq };
}

/** Whether a call of the batch can run now: sequentially the first one must not wait for a decision. */
function canRunNow(agent: Agent): boolean {
  const pending = agent.pendingToolCalls().filter((c) => agent.approvals[c.toolCallId]?.status !== 'pending');
  return agent.config.parallelTools ? pending.length > 0 : pending[0] !== undefined && pending[0] === agent.pendingToolCalls()[0];
}
