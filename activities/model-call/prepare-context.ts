/**
 * Before a model call streams: the entries this worker lacks (the entry cache asks the agent for them),
 * the context rendered with the same pure function the workflow's history defines and counted with the
 * model's tokenizer, and the typed-answer schema the turn's input asks for.
 */
import type { Context } from '@temporalio/activity';
import {
  type HistoryEntry,
  type ModelContext,
  type ModelContextOptions,
  bytesPerTokenEstimate,
  estimateTokens,
  renderModelContext,
  turnResponseSchema,
  type SegmentRef,
  archivedRewound,
  visibleEntries,
  withoutArchivedRewound,
} from '../../agent/index';
import type { ArchiveStore, SegmentBefore, SegmentContent } from '../../common/archive/index';
import type { ArchiveIndexCache } from '../archive-index-cache';
import type { EntryCache } from '../entry-cache';
import { inputBudgetFor, tokenizerFor } from '../models/context-window';
import type { CallModelInput } from '../types';
import { offersArchiveTools } from './archive-offer';

/** Where a model call's entries come from: the worker's caches and the archive. */
export interface ContextSources {
  entries: EntryCache;
  archive: ArchiveStore;
  indexes: ArchiveIndexCache;
}

export interface PreparedContext {
  context: ModelContext;
  responseSchema: ReturnType<typeof turnResponseSchema>;
  /** Whether the archive's tools are offered (see archive-offer.ts). */
  archived: boolean;
  /** The entries the context was rendered from, and how many archived segments were read for them. */
  known: readonly HistoryEntry[];
  segments: number;
}

export async function prepareContext(deps: ContextSources, ctx: Context, input: CallModelInput): Promise<PreparedContext> {
  // The entries query waits for the agent's workflow worker, and a large context takes a while to
  // count; together they can outlast the heartbeat timeout, which would retry a call not yet started.
  // (A local activity cannot heartbeat: the worker heartbeats its workflow task instead.)
  const preparing = setInterval(() => ctx.info.isLocal || ctx.heartbeat(), 1000);
  try {
    const { known: all, base, segments } = await knownEntries(deps, ctx, input);
    const known = visibleEntries(all, input.uptoSeq); // what a rewind took out is not the model's
    return {
      context: await renderCounted(known, input, base),
      responseSchema: turnResponseSchema(known),
      archived: offersArchiveTools(input, known),
      known,
      segments: segments ?? 0,
    };
  } finally {
    clearInterval(preparing);
  }
}

/**
 * The entries the call renders: the working set after the archive (the entry cache) and, when older
 * entries are archived and the model's window has room for more, archived segments read from the blob
 * store (cached), newest first — up to the newest compaction, whose summary stands for everything before
 * it (read whatever the estimate says). The rendering starts from the oldest segment's `before`, or,
 * when no segment is needed, from the small state blob after the newest one: a model without a known
 * window, or whose working set fills it, reads no segment at all.
 */
export async function knownEntries(
  deps: ContextSources,
  ctx: Context,
  input: Pick<CallModelInput, 'agentId' | 'runId' | 'uptoSeq' | 'model' | 'contextWindow' | 'archive'>,
): Promise<{ known: HistoryEntry[]; base?: SegmentBefore; segments?: number }> {
  const working = await deps.entries.range(ctx.client, input.agentId, input.runId, input.archive?.throughSeq ?? 0, input.uptoSeq, ctx.info.isLocal);
  const asked = input.archive;
  if (!asked) return { known: working };
  // A call by reference (no `segments`) reads the index; one that names its segments only when it needs more or a rewind's.
  const rewinds = asked.rewound?.length ?? asked.rewinds ?? 0;
  const budget = inputBudgetFor(input.model, input.contextWindow);
  const reads = budget !== undefined && !hasCompaction(visibleEntries(working));
  const index = !asked.segments || reads || rewinds ? await deps.indexes.get(ctx.client, input.agentId, input.runId, asked.throughSeq, rewinds) : undefined;
  if (!asked.segments && !index) throw new Error(`The archive index of ${input.agentId} through seq ${asked.throughSeq} could not be read.`);
  // The index as far as this call's archive reaches (a seal after the call was scheduled is not its own).
  const indexed = index?.segments.filter((ref) => ref.toSeq <= asked.throughSeq);
  const newest = (asked.segments ?? indexed)?.at(-1);
  if (!newest) return { known: working };
  const archived: SegmentContent[] = [];
  // What rewinds into the archive took out (ArchiveIndex.rewound): never read, counted nor sent.
  const rewound = { rewound: asked.rewound ?? index?.rewound };
  const allOut = (ref: SegmentRef) => !!rewound.rewound?.some(([from, to]) => from <= ref.fromSeq && ref.toSeq <= to);
  if (reads) {
    let tokens = estimateTokens(JSON.stringify(working));
    const refs = indexed?.length ? indexed : (asked.segments ?? []);
    const summarySeq = index?.compaction && !archivedRewound(rewound, index.compaction.seq) ? index.compaction.seq : undefined;
    for (let i = refs.length - 1; i >= 0 && (tokens < budget || (summarySeq !== undefined && refs[i].toSeq >= summarySeq)); i--) {
      if (allOut(refs[i])) continue;
      const segment = await deps.archive.readSegment(refs[i]);
      const entries = withoutArchivedRewound(rewound, segment.entries);
      archived.unshift(entries === segment.entries ? segment : { before: segment.before, entries: [...entries] });
      tokens += refs[i].tokens;
      if (hasCompaction(visibleEntries(entries))) break;
    }
  }
  if (!archived.length) {
    // After a rewind into the archive, the state after the newest segment is not the one in force: the index's is.
    const base = rewinds && index ? { systemInstruction: index.systemInstruction, widgets: index.widgets } : await deps.archive.readState(newest);
    return { known: working, base };
  }
  return { known: [...archived.flatMap((s) => s.entries), ...working], base: archived[0].before, segments: archived.length };
}

const hasCompaction = (entries: readonly HistoryEntry[]) => entries.some((e) => e.kind === 'compaction');

/**
 * The model context, counted with the model's tokenizer when it has one. Tokenizing is CPU-bound and
 * this event loop serves every agent of the worker, so the texts are counted first, in slices (a first
 * render with the byte estimate names them), and the real render then finds every count memoised.
 */
export async function renderCounted(entries: readonly HistoryEntry[], input: CallModelInput, base?: SegmentBefore): Promise<ModelContext> {
  const maxInputTokens = inputBudgetFor(input.model, input.contextWindow);
  const options: ModelContextOptions = {
    uptoSeq: input.uptoSeq,
    ...(base ? { base } : {}),
    ...(maxInputTokens !== undefined ? { maxInputTokens } : {}),
    ...(input.refusedAttachments?.length ? { refusedAttachments: input.refusedAttachments } : {}),
    ...(input.compactAt !== undefined ? { compactAt: input.compactAt } : {}),
    ...(input.compactionsDone ? { compactionsDone: true } : {}),
  };
  const counter = tokenizerFor(input.model);
  if (!counter) return renderModelContext(entries, options);
  const texts: string[] = [];
  renderModelContext(entries, { ...options, tokenizer: (text) => (texts.push(text), bytesPerTokenEstimate(text)) });
  await counter.prepare(texts);
  return renderModelContext(entries, { ...options, tokenizer: counter.count });
}
