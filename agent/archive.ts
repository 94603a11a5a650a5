/**
 * The agent's archive (ageless agents): closed older turns sealed into immutable, content-addressed
 * segments in the blob store, so that what the workflow holds, carries across continue-as-new and
 * checks is a bounded working set. The workflow never reads a segment: it keeps only their references
 * and the little state later entries build on (the instruction in force, widget states, usage totals),
 * all computed from the entries as they leave. Segments are written and read by activities and clients.
 */
import { z } from 'zod';
import { addUsage, usageTotals } from './agent-status';
import { type CompactionEntry, type HistoryEntry, JsonValue } from './entries';
import { bytesPerTokenEstimate } from './token-estimate';
import { utf8Length } from './agent-state';
import { createWidgets, rebuildWidgets, widgetStates } from './widgets/index';
import { visibleEntries } from './time-travel';

const BlobKey = z.string().regex(/^[0-9a-f]{64}$/);

/** One sealed segment: entries `fromSeq`…`toSeq`, in the blob store under `key`. */
export const SegmentRef = z.object({
  /** The blob store's key for the stored bytes (compressed, and encrypted when codec keys are set). */
  key: BlobKey,
  /** sha256 of the segment's canonical JSON: what it holds, whoever wrote it and however it is stored. */
  hash: BlobKey,
  fromSeq: z.number().int().positive(),
  toSeq: z.number().int().positive(),
  entries: z.number().int().positive(),
  /** UTF-8 bytes of the entries' JSON. */
  bytes: z.number().int().nonnegative(),
  /** Estimated tokens of the entries' text (bytes per token), for choosing what a model call reads. */
  tokens: z.number().int().nonnegative(),
  /** Blob key of the segment's term index (what `recall` searches). */
  indexKey: BlobKey.optional(),
  /**
   * Blob key of the state after the segment (the instruction in force, widget states): a model call that
   * needs none of the segment's entries reads this instead of the segment.
   */
  stateKey: BlobKey.optional(),
});
export type SegmentRef = z.infer<typeof SegmentRef>;

/** Usage of the archived entries of one UTC day, after the budget's start: what day budgets still count. */
const ArchivedDay = z.object({ day: z.string(), tokens: z.number().nonnegative(), costUsd: z.number().nonnegative(), modelCalls: z.number().int() });
export type ArchivedDay = z.infer<typeof ArchivedDay>;

export const ArchiveIndex = z.object({
  /** Every entry up to this seq is archived; the working set holds the later ones. */
  throughSeq: z.number().int().nonnegative(),
  /** Archived entries in all. */
  entries: z.number().int().nonnegative(),
  /** Their JSON bytes in all. */
  bytes: z.number().int().nonnegative(),
  /** The newest segments' references, oldest first (at most INLINE_SEGMENTS). */
  segments: z.array(SegmentRef).max(256),
  /**
   * Older references, folded into a chain of manifests in the blob store (each lists its segments and
   * the previous manifest's key): the newest manifest's key, and how many segments the chain holds.
   */
  manifest: z.object({ key: BlobKey, segments: z.number().int().positive(), throughSeq: z.number().int().positive() }).optional(),
  /** The system instruction in force at `throughSeq` ('' when none). */
  systemInstruction: z.string(),
  /** Widget states at `throughSeq`, by widget name: later entries' widget rebuilds start from them. */
  widgets: z.record(z.string(), JsonValue),
  /** Usage of every archived model call. */
  usage: z.object({
    inputTokens: z.number().nonnegative(),
    outputTokens: z.number().nonnegative(),
    cachedInputTokens: z.number().nonnegative(),
    costUsd: z.number().nonnegative(),
    modelCalls: z.number().int().nonnegative(),
  }),
  /** Archived usage of the newest day archived, counted from the budget's start (see budgetHit). */
  day: ArchivedDay.optional(),
  /** The newest input number whose turn is archived. */
  inputSeq: z.number().int().nonnegative(),
  /** The newest compaction entry archived (its seq and the seq it covers through), if any. */
  compaction: z.object({ seq: z.number().int().positive(), throughSeq: z.number().int().nonnegative() }).optional(),
  /**
   * Archived seqs a rewind took out (`[fromSeq, toSeq]`, oldest first): a rewind to an archived entry
   * cannot leave the rewind entry beside what it took out, so every reader of segments leaves these out.
   */
  rewound: z
    .array(z.tuple([z.number().int().positive(), z.number().int().positive()]))
    .max(256)
    .optional(),
});
export type ArchiveIndex = z.infer<typeof ArchiveIndex>;

/** Segment references kept inline; older ones are folded into the manifest chain. */
export const INLINE_SEGMENTS = 32;

/**
 * How large the working set may grow: sealing starts over `2 × workingSetBytes` and keeps about
 * `workingSetBytes`. Small enough that what continue-as-new carries, and a new run or a worker after a
 * restart reads, stays under the payload codec's 128 KiB offload threshold: the model call reads older
 * turns from the archive, which its worker caches.
 */
export const DEFAULT_WORKING_SET_BYTES = 64 * 1024;

/** The default before SMALLER_WORKING_SET_CHANGE: agents whose runs sealed under it keep it in those runs. */
export const FIRST_WORKING_SET_BYTES = 256 * 1024;

/** The workflow patch behind sealing and the working set: agents before it carried every entry. */
export const ARCHIVE_CHANGE = 'ageless-archive';

/** The workflow patch behind the smaller default working set (asked only when it alone makes a seal due). */
export const SMALLER_WORKING_SET_CHANGE = 'working-set-64k';

export function emptyArchive(): ArchiveIndex {
  return {
    throughSeq: 0,
    entries: 0,
    bytes: 0,
    segments: [],
    systemInstruction: '',
    widgets: widgetStates(createWidgets()),
    usage: usageTotals([]),
    inputSeq: 0,
  };
}

/** The JSON size of an entry, as a segment counts it. */
export function entryBytes(entry: HistoryEntry): number {
  return utf8Length(JSON.stringify(entry));
}

/** The largest segment a seal makes, unless one turn alone is larger (turns are never split). */
export const MAX_SEGMENT_BYTES = 1024 * 1024;

/** A run of working entries to seal: indexes `start`…`end` (inclusive) and their JSON bytes. */
export interface SealPiece {
  start: number;
  end: number;
  bytes: number;
}

/**
 * How to seal a working set grown past `2 × keepBytes`: the oldest whole turns, in segments of up to
 * about `maxSegmentBytes`, until about `keepBytes` are left — never the turn in progress (from the newest
 * input on). Cuts fall just before an input, so the working set always starts with whole turns (and what
 * came between them: widget writes, instructions). Empty when nothing is due or nothing can be cut.
 */
export function sealPlan(
  entries: readonly HistoryEntry[],
  sizes: readonly number[],
  keepBytes: number,
  options: { maxSegmentBytes?: number; maxPieces?: number } = {},
): SealPiece[] {
  const maxSegment = options.maxSegmentBytes ?? MAX_SEGMENT_BYTES;
  const maxPieces = options.maxPieces ?? Number.POSITIVE_INFINITY;
  let remaining = 0;
  for (const size of sizes) remaining += size;
  if (remaining <= 2 * keepBytes) return [];
  let limit = 0; // the turn in progress starts at the newest model_input
  for (let i = entries.length - 1; i >= 0; i--) {
    if (entries[i].kind === 'model_input') {
      limit = i;
      break;
    }
  }
  const plan: SealPiece[] = [];
  let start = 0;
  let bytes = 0;
  let cut = -1; // the last clean cut of the piece being made, and its bytes
  let cutBytes = 0;
  for (let i = 0; i < limit && plan.length < maxPieces; i++) {
    bytes += sizes[i];
    if (entries[i + 1].kind !== 'model_input') continue; // only whole turns leave
    cut = i;
    cutBytes = bytes;
    const last = remaining - bytes <= keepBytes;
    if (last || bytes >= maxSegment) {
      // Too little to be worth a segment (the turn in progress is most of what is left): wait.
      if (bytes < keepBytes / 2) break;
      plan.push({ start, end: i, bytes });
      remaining -= bytes;
      start = i + 1;
      bytes = 0;
      cut = -1;
    }
    if (last) break;
  }
  // The turn in progress is larger than the budget: what is before it goes, if it is worth a segment.
  if (cut >= start && cutBytes >= keepBytes / 2 && plan.length < maxPieces) plan.push({ start, end: cut, bytes: cutBytes });
  return plan;
}

/** The next segment to seal (the first piece of sealPlan), as seqs; undefined when none is due. */
export function chooseSeal(
  entries: readonly HistoryEntry[],
  sizes: readonly number[],
  keepBytes: number,
): { fromSeq: number; toSeq: number; count: number; bytes: number } | undefined {
  const [piece] = sealPlan(entries, sizes, keepBytes, { maxPieces: 1 });
  if (!piece) return undefined;
  return { fromSeq: entries[0].seq, toSeq: entries[piece.end].seq, count: piece.end + 1, bytes: piece.bytes };
}

/**
 * The index after `sealed` (the oldest working entries, as they leave) went into the segment `ref`.
 * Pure and proportional to the entries sealed: the instruction, widget states and usage are carried on
 * from the index before. `budgetFromSeq`: entries up to it no longer count against day budgets.
 */
export function archiveAfterSeal(
  index: ArchiveIndex,
  sealed: readonly HistoryEntry[],
  ref: SegmentRef,
  budgetFromSeq: number,
  /** A fork's source's archived rewinds (ArchiveIndex.rewound), when the fork rebuilds the index from shared segments. */
  sourceRewound?: ArchiveIndex['rewound'],
): ArchiveIndex {
  let inputSeq = index.inputSeq;
  let compaction = index.compaction;
  // A rewind to an archived entry takes out the sealed entries before it too: readers of a range may not read the rewind.
  const first = sealed[0].seq;
  let rewound = index.rewound ? [...index.rewound] : undefined;
  for (const [from, to] of sourceRewound ?? [])
    if (from <= ref.toSeq && to >= first) rewound = withRange(rewound, Math.max(from, first), Math.min(to, ref.toSeq));
  for (const e of sealed) if (e.kind === 'rewind' && e.toSeq < first && e.seq > first) rewound = withRange(rewound, first, e.seq - 1);
  // What a rewind took out is sealed with it (AgentState.sealCandidate), or listed: it builds no state and counts against no budget.
  const inForce = withoutArchivedRewound({ rewound }, visibleEntries(sealed));
  for (const e of sealed) if (e.kind === 'model_input' && e.inputSeq !== undefined) inputSeq = e.inputSeq;
  for (const e of inForce) if (e.kind === 'compaction') compaction = compactionOf(e);
  const { systemInstruction, widgets } = stateAfter(index, inForce);
  const usage = addUsage(index.usage, usageTotals(sealed)); // what was spent, rewound or not
  return {
    ...index,
    throughSeq: ref.toSeq,
    entries: index.entries + sealed.length,
    bytes: index.bytes + ref.bytes,
    segments: [...index.segments, ref],
    systemInstruction,
    widgets,
    usage,
    ...dayAfter(index.day, inForce, budgetFromSeq),
    inputSeq,
    ...(compaction ? { compaction } : {}),
    ...(rewound?.length ? { rewound } : {}),
  };
}

/** `ranges` with `[from, to]` added, merged into the last range when they touch (so one rewind is one range). */
function withRange(ranges: Array<[number, number]> | undefined, from: number, to: number): Array<[number, number]> {
  const out = ranges ? [...ranges] : [];
  const last = out.at(-1);
  if (last && from <= last[1] + 1 && to >= last[0]) out[out.length - 1] = [Math.min(last[0], from), Math.max(last[1], to)];
  else out.push([from, to]);
  return out;
}

/** What later entries build on: the instruction in force and the widget states. */
export interface ArchiveState {
  systemInstruction: string;
  widgets: Record<string, JsonValue>;
}

/** The state after `entries`, from the state before them (a segment's `before`). */
export function stateAfter(before: ArchiveState, all: readonly HistoryEntry[]): ArchiveState {
  const entries = visibleEntries(all);
  let systemInstruction = before.systemInstruction;
  for (const e of entries) if (e.kind === 'system_instruction') systemInstruction = e.instruction;
  return { systemInstruction, widgets: widgetStates(rebuildWidgets(entries, Number.POSITIVE_INFINITY, before.widgets)) };
}

/** The compaction an entry records, as the index keeps it. */
function compactionOf(e: CompactionEntry): ArchiveIndex['compaction'] {
  return { seq: e.seq, throughSeq: e.throughSeq };
}

function dayAfter(day: ArchivedDay | undefined, sealed: readonly HistoryEntry[], budgetFromSeq: number): { day?: ArchivedDay } {
  let out = day ? { ...day } : undefined;
  for (const e of sealed) {
    if ((e.kind !== 'model_output' && e.kind !== 'compaction') || e.seq <= budgetFromSeq) continue; // a summary call costs as any other
    const d = e.timestamp.slice(0, 10);
    if (!out || out.day !== d) out = { day: d, tokens: 0, costUsd: 0, modelCalls: 0 };
    out.tokens += (e.usage?.inputTokens ?? 0) + (e.usage?.outputTokens ?? 0);
    out.costUsd += e.usage?.costUsd ?? 0;
    out.modelCalls += 1;
  }
  return out ? { day: out } : {};
}

/** The references folded into the manifest chain when the inline list is full: the oldest half. */
export function foldable(index: ArchiveIndex): SegmentRef[] {
  return index.segments.length >= INLINE_SEGMENTS ? index.segments.slice(0, INLINE_SEGMENTS / 2) : [];
}

/** The index once `folded` (the oldest inline references) are in the manifest `key`. */
export function archiveAfterFold(index: ArchiveIndex, folded: readonly SegmentRef[], key: string): ArchiveIndex {
  const last = folded[folded.length - 1];
  return {
    ...index,
    segments: index.segments.slice(folded.length),
    manifest: { key, segments: (index.manifest?.segments ?? 0) + folded.length, throughSeq: last.toSeq },
  };
}

/** Estimated tokens of entries, as a segment reference records them. */
export function estimateTokens(json: string): number {
  return bytesPerTokenEstimate(json);
}

/**
 * The segments a model call reads beside the working set: the newest ones after `afterSeq` (the last
 * compaction's, whose summary stands for everything before), newest first until `maxTokens` is covered
 * — a model's window is never larger, so older ones could only be trimmed away — and always the newest
 * one, whose `before` and entries give the state the working set starts from.
 */
export function segmentsForContext(index: ArchiveIndex | undefined, afterSeq: number, maxTokens = 1_500_000): SegmentRef[] {
  if (!index?.segments.length) return [];
  const picked: SegmentRef[] = [];
  let tokens = 0;
  for (let i = index.segments.length - 1; i >= 0; i--) {
    const ref = index.segments[i];
    if (picked.length && (ref.toSeq <= afterSeq || tokens >= maxTokens)) break;
    picked.unshift(ref);
    tokens += ref.tokens;
  }
  return picked;
}

/** Archived rewinds kept in the index (see ArchiveIndex.rewound); a rewind past them is refused. */
export const MAX_ARCHIVED_REWINDS = 256;

/** The workflow patch behind a rewind to an archived entry (see Agent.rewind and the rewindPoint activity). */
export const REWIND_ARCHIVE_CHANGE = 'rewind-archived';

/** Whether an archived rewind took `seq` out. */
export function archivedRewound(index: Pick<ArchiveIndex, 'rewound'> | undefined, seq: number): boolean {
  return !!index?.rewound?.some(([from, to]) => seq >= from && seq <= to);
}

/** `entries` without those an archived rewind took out (itself when none). */
export function withoutArchivedRewound<T extends HistoryEntry>(index: Pick<ArchiveIndex, 'rewound'> | undefined, entries: readonly T[]): readonly T[] {
  if (!index?.rewound?.length) return entries;
  return entries.filter((e) => !archivedRewound(index, e.seq));
}

/**
 * What the agent goes on from after a rewind to the archived entry `toSeq`, as the rewindPoint activity
 * reads it from the segment holding it (its `before` and its entries up to `toSeq`, in force).
 */
export interface ArchivedPointState {
  systemInstruction: string;
  widgets: Record<string, JsonValue>;
  /** The newest compaction in force at `toSeq`, when the segment holds one. */
  compaction?: { seq: number; throughSeq: number };
  /** Usage in force of the newest day at `toSeq` (from the budget's start), when any. */
  day?: ArchivedDay;
}

/**
 * The index after a rewind to the archived entry `toSeq`: what later entries build on is the state at
 * `toSeq` (the instruction, widget states, newest compaction, day usage), and the archived entries after
 * it are out. Usage of every archived call stays (what was spent is spent).
 */
export function archiveAfterRewind(index: ArchiveIndex, toSeq: number, at: ArchivedPointState): ArchiveIndex {
  const compaction =
    at.compaction ?? (index.compaction && index.compaction.seq <= toSeq && !archivedRewound(index, index.compaction.seq) ? index.compaction : undefined);
  const { compaction: _old, day: _day, ...rest } = index;
  return {
    ...rest,
    systemInstruction: at.systemInstruction,
    widgets: at.widgets,
    ...(compaction ? { compaction } : {}),
    ...(at.day ? { day: at.day } : {}),
    // A rewind to the last archived entry takes out only working entries (the rewind entry does that).
    ...(toSeq < index.throughSeq ? { rewound: withRange(index.rewound, toSeq + 1, index.throughSeq) } : {}),
  };
}

/**
 * The state at the archived entry `toSeq` from the segment holding it (see ArchivedPointState).
 * `earlier`: the segments before it, newest first, for the day's usage (read while still that day).
 */
export function archivedPointState(
  index: Pick<ArchiveIndex, 'rewound'>,
  segment: { before: ArchiveState; entries: readonly HistoryEntry[] },
  toSeq: number,
  budgetFromSeq: number,
  earlier: ReadonlyArray<readonly HistoryEntry[]> = [],
): ArchivedPointState {
  const upTo = withoutArchivedRewound(index, visibleEntries(segment.entries, toSeq));
  const { systemInstruction, widgets } = stateAfter(segment.before, upTo);
  let compaction: ArchivedPointState['compaction'];
  for (const e of upTo) if (e.kind === 'compaction') compaction = compactionOf(e);
  // The day budget counts the newest day's calls in force: those of the segment, then of earlier ones on that day.
  const inForce = [...earlier].reverse().flatMap((entries) => withoutArchivedRewound(index, visibleEntries(entries)));
  const { day } = dayAfter(undefined, [...inForce, ...upTo], budgetFromSeq);
  return { systemInstruction, widgets, ...(compaction ? { compaction } : {}), ...(day ? { day } : {}) };
}
