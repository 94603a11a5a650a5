/**
 * Forks (`livecontext fork`): a new agent whose history is another's up to a valid point (agent/time-travel.ts),
 * started from a snapshot built by agent/fork.ts. Nothing is written to the source: its snapshot is read by
 * query, and its forks are found through visibility (the LivecontextForkedFrom search attribute every fork
 * starts with, and a memo with the lineage). An archived source's sealed segments are shared, not copied:
 * the fork's archive index names the same content-addressed segments up to the last whole one before the
 * point, and only the entries after it are carried (sealed again at the start when they are many).
 */
import { type Client, WorkflowExecutionAlreadyStartedError, WorkflowNotFoundError } from '@temporalio/client';
import {
  type AgentSnapshot,
  type ArchiveIndex,
  type ForkChanges,
  type ForkedFrom,
  type HistoryEntry,
  InputRejectedError,
  NewAgentConfig,
  archiveAfterFold,
  archiveAfterSeal,
  archivedRewound,
  emptyArchive,
  foldable,
  forkedSnapshot,
  readSnapshot,
  travelPoint,
  visibleEntries,
} from '../agent/index';
import type { ArchiveStore } from '../common/archive/index';
import { FORKED_FROM_ATTRIBUTE, WORKFLOW_TYPE } from '../workflows/messages';
import { archivedForStart } from './agent-archive';

/** `livecontext fork AGENT --at SEQ --as NEW [--model M] [--system TEXT] [--tools …]`. */
export interface ForkOptions extends ForkChanges {
  /** The entry to fork at: a turn's end, or an input (whose turn the fork runs again). */
  at: number;
  /** The new agent's id. */
  as: string;
}

export interface ForkResult {
  agentId: string;
  forkedFrom: ForkedFrom;
  /** What the fork point is: the fork waits for input (`turn_end`) or runs the input's turn again (`model_input`). */
  point: 'turn_end' | 'model_input';
  /** Archive segments the fork shares with the source (not copied). */
  sharedSegments: number;
  /** Entries the fork carries in its own state (or seals anew): those after the shared segments. */
  carriedEntries: number;
}

/** A fork as its source's visibility lists it. */
export interface ForkSummary {
  agentId: string;
  status: string;
  startTime: string;
  /** The lineage recorded at the fork's start (null if its memo is unreadable). */
  forkedFrom: ForkedFrom | null;
}

/** The source's entries to fork from, as a cut: shared segments (an index rebuilt over them) and what follows through `seq`. */
interface Cut {
  entries: HistoryEntry[];
  archive?: ArchiveIndex;
  point: 'turn_end' | 'model_input';
  sharedSegments: number;
}

/** Refuses a fork point that is not valid, with the reason (nothing is started). */
function checkedPoint(entries: readonly HistoryEntry[], seq: number, expect?: 'model_input'): 'turn_end' | 'model_input' {
  const point = travelPoint(entries, seq);
  if (!point.ok) throw new InputRejectedError('BAD_FORK_POINT', point.reason);
  const kind = point.kind === 'input' ? 'model_input' : 'turn_end';
  if (expect && kind !== expect) {
    throw new InputRejectedError('BAD_FORK_POINT', `Entry #${seq} ends a turn; compare runs a turn again, so it starts at an input (a model_input entry).`);
  }
  return kind;
}

/**
 * The cut at `seq`. In the working set: the source's whole archive is shared (its index as it is). In the
 * archive: the segments before the one holding `seq` are shared, their index rebuilt from them as the agent
 * built it when it sealed them (new manifests are written when there are many; the segments are not).
 */
export async function forkCut(store: ArchiveStore, source: AgentSnapshot, seq: number, expect?: 'model_input'): Promise<Cut> {
  const archive = source.archive;
  const lastSeq = source.nextSeq - 1;
  if (!Number.isInteger(seq) || seq < 1 || seq > lastSeq) {
    throw new InputRejectedError('BAD_FORK_POINT', `#${seq} is not an entry of the agent (its history holds #1–#${lastSeq}).`);
  }
  if (!archive || seq > archive.throughSeq) {
    const point = checkedPoint(source.entries, seq, expect);
    // After a rewind into the archive, the working set must still follow the archive: its rewound entries are
    // copied too (with the rewind that takes them out), as the archived ones are shared.
    const intoArchive = !!archive && source.entries.some((e) => e.kind === 'rewind' && e.seq <= seq && e.toSeq <= archive.throughSeq);
    const entries = intoArchive ? source.entries.filter((e) => e.seq <= seq) : [...visibleEntries(source.entries, seq)];
    return { entries, ...(archive ? { archive } : {}), point, sharedSegments: archive?.segments.length ?? 0 };
  }
  if (archivedRewound(archive, seq))
    throw new InputRejectedError('BAD_FORK_POINT', `Entry #${seq} was rewound (a rewind into the archive took it out): it is no longer in force.`);
  const refs = await store.allSegments(archive);
  const at = refs.findIndex((r) => r.fromSeq <= seq && seq <= r.toSeq);
  if (at < 0) throw new InputRejectedError('BAD_FORK_POINT', `Entry #${seq} is not in the agent's history (its archive has no segment holding it).`);
  const holding = await store.readSegment(refs[at]);
  const point = checkedPoint(holding.entries, seq, expect);
  const whole = seq === refs[at].toSeq ? at + 1 : at; // a point at a segment's last entry shares that segment too
  const budgetFromSeq = source.budgetFromSeq !== undefined && source.budgetFromSeq <= seq ? source.budgetFromSeq : 0;
  let index: ArchiveIndex = emptyArchive();
  for (const ref of refs.slice(0, whole)) {
    const segment = ref === refs[at] ? holding : await store.readSegment(ref);
    const fold = foldable(index);
    if (fold.length) index = archiveAfterFold(index, fold, await store.writeManifest(fold, index.manifest?.key));
    index = archiveAfterSeal(index, segment.entries, ref, budgetFromSeq, archive.rewound);
  }
  const entries = whole > at ? [] : [...visibleEntries(holding.entries, seq)];
  return { entries, ...(whole > 0 ? { archive: index } : {}), point, sharedSegments: whole };
}

/** Checks the fork's changes as a new agent's configuration would be checked (InputRejectedError BAD_CONFIG). */
function checkChanges(source: AgentSnapshot, changes: ForkChanges): void {
  const { delegatedBy: _parent, forkedFrom: _lineage, ...config } = source.config;
  const parsed = NewAgentConfig.safeParse({
    ...config,
    ...(changes.model ? { model: changes.model } : {}),
    ...(changes.tools ? { tools: changes.tools } : {}),
  });
  if (!parsed.success) {
    throw new InputRejectedError('BAD_CONFIG', parsed.error.issues.map((i) => `${i.path.join('.') || 'config'}: ${i.message}`).join('; '));
  }
}

/** A running agent with this id: a fork may not take its id (a stopped one's id may be reused, as by start and import). */
export async function refuseRunning(client: Client, agentId: string): Promise<void> {
  const description = await client.workflow
    .getHandle(agentId)
    .describe()
    .catch((err) => {
      if (err instanceof WorkflowNotFoundError) return undefined;
      throw err;
    });
  if (description?.status.name === 'RUNNING') {
    throw new WorkflowExecutionAlreadyStartedError(`Agent "${agentId}" already exists: a fork needs a new id.`, agentId, WORKFLOW_TYPE);
  }
}

/**
 * The fork's snapshot, ready to start: the cut, the fork's changes and lineage, large carried parts sealed
 * into new segments. `source` and `runId` are the source's snapshot and current run, read by the caller.
 */
export async function forkStart(
  store: ArchiveStore,
  source: AgentSnapshot,
  sourceId: string,
  runId: string,
  options: ForkOptions,
  expect?: 'model_input',
): Promise<{ snapshot: AgentSnapshot; result: ForkResult }> {
  checkChanges(source, options);
  const cut = await forkCut(store, source, options.at, expect);
  const forkedFrom: ForkedFrom = { agentId: sourceId, runId, seq: options.at };
  const built = forkedSnapshot(source, cut, forkedFrom, options, new Date().toISOString());
  const snapshot = await archivedForStart(store, readSnapshot(built));
  return {
    snapshot,
    result: { agentId: options.as, forkedFrom, point: cut.point, sharedSegments: cut.sharedSegments, carriedEntries: cut.entries.length },
  };
}

/** What a fork starts with beside its input: the search attribute its source's `forks` finds it by, and its lineage as a memo. */
export function forkStartExtras(forkedFrom: ForkedFrom) {
  return { searchAttributes: [{ key: FORKED_FROM_ATTRIBUTE, value: forkedFrom.agentId }], memo: { forkedFrom } };
}

/** The forks of `agentId`, newest first, found through visibility (every run; a fork that continued as new is listed once). */
export async function listForks(client: Client, agentId: string): Promise<ForkSummary[]> {
  const query = `WorkflowType = '${WORKFLOW_TYPE}' AND ${FORKED_FROM_ATTRIBUTE.name} = ${JSON.stringify(agentId)}`;
  const seen = new Map<string, ForkSummary>();
  for await (const wf of client.workflow.list({ query })) {
    if (seen.has(wf.workflowId)) continue; // newest run first: an earlier run of the same fork
    const memo = wf.memo as { forkedFrom?: ForkedFrom } | undefined;
    seen.set(wf.workflowId, { agentId: wf.workflowId, status: wf.status.name, startTime: wf.startTime.toISOString(), forkedFrom: memo?.forkedFrom ?? null });
  }
  return [...seen.values()];
}
