/**
 * A fork's starting snapshot (`livecontext fork`): the source's history up to a valid point (same seq
 * numbers), its widgets as they were there (rebuilt from history), its configuration with the fork's
 * changes and its lineage. Pure: the client cuts the archive and starts the agent (client/agent-fork.ts).
 */
import type { AgentConfig, ForkedFrom } from './agent-config';
import { type ArchiveIndex, stateAfter } from './archive';
import type { HistoryEntry, SystemInstructionEntry } from './entries';
import { ARCHIVED_SNAPSHOT_VERSION, type AgentSnapshot, SNAPSHOT_FORMAT, SNAPSHOT_VERSION } from './snapshot';
import { emptyArchive } from './archive';

/** What a fork may change at its start; everything else is the source's configuration. */
export interface ForkChanges {
  model?: string;
  tools?: string[];
  /** Recorded as a `system_instruction` entry right after the fork point (when it differs from the one in force there). */
  systemInstruction?: string;
}

/**
 * The fork's snapshot. `cut.entries`: the source's entries after `cut.archive` (or all of them) through
 * `forkedFrom.seq`; `cut.archive`: the archive index as it was at the last segment before that point
 * (segments shared with the source), if any. `now`: the time a changed instruction is recorded at.
 */
export function forkedSnapshot(
  source: AgentSnapshot,
  cut: { entries: readonly HistoryEntry[]; archive?: ArchiveIndex },
  forkedFrom: ForkedFrom,
  changes: ForkChanges,
  now: string,
): AgentSnapshot {
  const { seq } = forkedFrom;
  const entries = cut.entries.filter((e) => e.seq <= seq);
  const archive = cut.archive;
  const before = archive ?? emptyArchive();
  const state = stateAfter(before, entries);
  let consumed = archive?.inputSeq ?? source.resetAfterInputSeq ?? 0;
  for (const e of entries) if (e.kind === 'model_input' && e.inputSeq !== undefined) consumed = e.inputSeq;
  if (changes.systemInstruction !== undefined && changes.systemInstruction !== state.systemInstruction) {
    const entry: SystemInstructionEntry = { seq: seq + 1, timestamp: now, kind: 'system_instruction', instruction: changes.systemInstruction };
    entries.push(entry);
  }
  // A fork is an agent of its own: it does not answer the source's parent (delegatedBy), nor notify the
  // webhooks of the source's A2A tasks (a2aPush: they name the source's turns, not the fork's).
  const { delegatedBy: _parent, forkedFrom: _earlier, a2aPush: _pushes, ...config } = source.config;
  const forkConfig: AgentConfig = {
    ...config,
    ...(changes.model ? { model: changes.model } : {}),
    ...(changes.tools ? { tools: changes.tools } : {}),
    forkedFrom,
  };
  return {
    format: SNAPSHOT_FORMAT,
    version: archive ? ARCHIVED_SNAPSHOT_VERSION : SNAPSHOT_VERSION,
    sourceAgentId: forkedFrom.agentId,
    config: forkConfig,
    entries,
    ...(archive ? { archive } : {}),
    nextSeq: (entries.at(-1)?.seq ?? seq) + 1,
    pendingToolResults: [],
    inbox: [],
    nextInputSeq: consumed + 1,
    consumedInputSeq: consumed,
    approvals: {},
    widgets: state.widgets as AgentSnapshot['widgets'],
    ...(source.resetAfterInputSeq !== undefined && source.resetAfterInputSeq <= consumed ? { resetAfterInputSeq: source.resetAfterInputSeq } : {}),
    ...(source.toolCatalog ? { toolCatalog: source.toolCatalog } : {}),
    ...(source.budgetFromSeq !== undefined && source.budgetFromSeq <= seq ? { budgetFromSeq: source.budgetFromSeq } : {}),
    ...(source.refusedAttachments ? { refusedAttachments: source.refusedAttachments } : {}),
  };
}
