/**
 * The client's side of the archive (ageless agents): history pages that reach into sealed segments,
 * export that streams every entry — archived ones first — as a version-1 snapshot any livecontext reads,
 * and import that seals a large history into segments before the agent starts, so that no payload and
 * no workflow task carries more than the working set. Clients share the workers' blob store and codec
 * keys (as for offloaded payloads): LIVECONTEXT_BLOB_DIR or the S3 settings, LIVECONTEXT_CODEC_KEYS.
 */
import {
  type AgentSnapshot,
  type ArchiveIndex,
  DEFAULT_WORKING_SET_BYTES,
  type HistoryEntry,
  SNAPSHOT_FORMAT,
  SNAPSHOT_VERSION,
  ARCHIVED_SNAPSHOT_VERSION,
  archiveAfterFold,
  archiveAfterSeal,
  emptyArchive,
  entryBytes,
  foldable,
  sealPlan,
} from '../agent/index';
import type { ArchiveStore } from '../common/archive/index';
import { PAGE_MAX_BYTES, PAGE_MAX_ENTRIES } from '../workflows/agent-views';
import type { EntriesPage, EntriesRequest } from '../workflows/messages';

/** The leading entries that fit in a page's bytes, as the `entries` query's pages (at least one, however large). */
function withinPageBytes(entries: HistoryEntry[]): HistoryEntry[] {
  let bytes = 0;
  for (let i = 0; i < entries.length; i++) {
    bytes += entryBytes(entries[i]);
    if (i > 0 && bytes > PAGE_MAX_BYTES) return entries.slice(0, i);
  }
  return entries;
}

/**
 * One page of history from `afterSeq` on: archived entries while the page starts in the archive, then
 * the working-set entries the query gave (`working`, its answer for the same request), so pages run on
 * across the archive's end. `index` asks the agent for its archive index (only when the page starts in
 * the archive).
 */
export async function pageThroughArchive(
  store: ArchiveStore,
  request: EntriesRequest,
  working: EntriesPage,
  index: () => Promise<ArchiveIndex | null>,
): Promise<EntriesPage> {
  const afterSeq = request.afterSeq ?? 0;
  const through = working.archivedThroughSeq;
  if (!through || afterSeq >= through) return working;
  const archive = await index();
  if (!archive) return working; // un-archived meanwhile (a reset): the working set is all there is
  const uptoSeq = request.uptoSeq ?? Number.POSITIVE_INFINITY;
  const limit = Math.min(Math.max(request.limit ?? PAGE_MAX_ENTRIES, 1), PAGE_MAX_ENTRIES);
  const archived = await store.entries(archive, { afterSeq, uptoSeq: Math.min(uptoSeq, archive.throughSeq), limit });
  // The archive's part ends at its last entry: the working set's first page follows it in the same page.
  const rest = (archived.at(-1)?.seq ?? afterSeq) >= archive.throughSeq ? working.entries.filter((e) => e.seq > archive.throughSeq) : [];
  const entries = withinPageBytes([...archived, ...rest].slice(0, limit));
  const last = entries.at(-1)?.seq ?? afterSeq;
  const allOfWorking = rest.length > 0 && last === rest[rest.length - 1].seq && working.nextAfterSeq === null;
  const done = last >= uptoSeq || allOfWorking || (last >= archive.throughSeq && rest.length === 0 && working.entries.length === 0);
  // What rewinds into the archive took out (the index's ranges, within this page), then the working set's ranges.
  const archivedOut = (archive.rewound ?? [])
    .filter(([from, to]) => to > afterSeq && from <= last)
    .map(([from, to]): [number, number] => [Math.max(from, afterSeq + 1), Math.min(to, last)]);
  const rewound = [...archivedOut, ...(working.rewound?.filter(([from]) => from <= last) ?? [])];
  return {
    entries,
    nextAfterSeq: done ? null : last,
    lastSeq: working.lastSeq,
    archivedThroughSeq: archive.throughSeq,
    ...(rewound?.length ? { rewound } : {}),
  };
}

/**
 * The agent's snapshot as text, every entry included (archived ones read from the store, segment by
 * segment), in the version-1 format every livecontext reads. Yields pieces, so a large agent is written
 * as it is read and never held whole.
 */
export async function* exportedSnapshot(store: ArchiveStore, snapshot: AgentSnapshot, sourceAgentId: string): AsyncGenerator<string> {
  const { entries, archive, ...rest } = snapshot;
  const head = JSON.stringify({ ...rest, format: SNAPSHOT_FORMAT, version: SNAPSHOT_VERSION, sourceAgentId }, null, 2);
  yield `${head.slice(0, head.lastIndexOf('\n}'))},\n  "entries": [`;
  let first = true;
  const line = (e: HistoryEntry) => {
    const text = `${first ? '' : ','}\n    ${JSON.stringify(e)}`;
    first = false;
    return text;
  };
  if (archive) {
    for (const ref of await store.allSegments(archive)) {
      const segment = await store.readSegment(ref);
      yield segment.entries.map(line).join('');
    }
  }
  yield entries.map(line).join('');
  yield `${first ? '' : '\n  '}]\n}\n`;
}

/**
 * A snapshot to start from, with its older entries sealed into the archive first when its history is
 * over twice the agent's working set (as the agent itself would have sealed them): the start carries
 * only the working set and the archive's index. Other snapshots are returned as they are.
 */
export async function archivedForStart(store: ArchiveStore, snapshot: AgentSnapshot): Promise<AgentSnapshot> {
  const keep = snapshot.config.workingSetBytes ?? DEFAULT_WORKING_SET_BYTES;
  const { entries } = snapshot;
  const planned = sealPlan(entries, entries.map(entryBytes), keep);
  // As the agent seals (AgentState.sealCandidate): no segment ends between a rewind's point and the rewind.
  const rewinds = entries.filter((e) => e.kind === 'rewind');
  const splits = planned.findIndex((p) => rewinds.some((r) => entries[p.end].seq > r.toSeq && entries[p.end].seq < r.seq));
  const plan = splits < 0 ? planned : planned.slice(0, splits);
  if (!plan.length) return snapshot;
  let index = snapshot.archive ?? emptyArchive();
  for (const piece of plan) {
    const leaving = entries.slice(piece.start, piece.end + 1);
    const ref = await store.writeSegment({ before: { systemInstruction: index.systemInstruction, widgets: index.widgets }, entries: leaving });
    const fold = foldable(index);
    if (fold.length) index = archiveAfterFold(index, fold, await store.writeManifest(fold, index.manifest?.key));
    index = archiveAfterSeal(index, leaving, ref, snapshot.budgetFromSeq ?? 0);
  }
  return { ...snapshot, version: ARCHIVED_SNAPSHOT_VERSION, entries: entries.slice(plan[plan.length - 1].end + 1), archive: index };
}

/**
 * A snapshot that names an archive (one the agent's own state carried) can start only where that archive
 * is: its newest segment must be readable from this client's blob store, or the import is refused.
 */
export async function checkArchiveReadable(store: ArchiveStore, archive: ArchiveIndex): Promise<void> {
  const newest = archive.segments.at(-1);
  if (!newest) return;
  try {
    await store.readSegment(newest);
  } catch (err) {
    throw new Error(`The snapshot's archive cannot be read here (${(err as Error).message}). Import an export (version 1) instead.`);
  }
}
