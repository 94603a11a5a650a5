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
} from '../../agent/index';
import type { ArchiveStore, SegmentBefore } from '../../common/archive/index';
import type { ArchiveIndexCache } from '../archive-index-cache';
import type { EntryCache } from '../entry-cache';
import { inputBudgetFor, tokenizerFor } from '../models/context-window';
import type { CallModelInput } from '../types';

/** Where a model call's entries come from: the worker's caches and the archive. */
export interface ContextSources {
  entries: EntryCache;
  archive: ArchiveStore;
  indexes: ArchiveIndexCache;
}

export async function prepareContext(
  deps: ContextSources,
  ctx: Context,
  input: CallModelInput,
): Promise<{ context: ModelContext; responseSchema: ReturnType<typeof turnResponseSchema> }> {
  // The entries query waits for the agent's workflow worker, and a large context takes a while to
  // count; together they can outlast the heartbeat timeout, which would retry a call not yet started.
  const preparing = setInterval(() => ctx.heartbeat(), 1000);
  try {
    const { known, base } = await knownEntries(deps, ctx, input);
    return { context: await renderCounted(known, input, base), responseSchema: turnResponseSchema(known) };
  } finally {
    clearInterval(preparing);
  }
}

/**
 * The entries the call renders: the working set after the archive (the entry cache) and, when older
 * entries are archived, archived segments read from the blob store (cached): the newest one, which the
 * agent names, and older ones while the model's window has room for them — up to the newest compaction,
 * whose summary stands for everything before it. The oldest segment's `before` is the state the
 * rendering starts from.
 */
async function knownEntries(deps: ContextSources, ctx: Context, input: CallModelInput) {
  const named = input.archive?.segments ?? [];
  const [archived, working] = await Promise.all([
    Promise.all(named.map((ref) => deps.archive.readSegment(ref))),
    deps.entries.range(ctx.client, input.agentId, input.runId, input.archive?.throughSeq ?? 0, input.uptoSeq),
  ]);
  const budget = inputBudgetFor(input.model, input.contextWindow);
  if (input.archive && named.length && budget !== undefined && !hasCompaction(working) && !archived.some((s) => hasCompaction(s.entries))) {
    let tokens = estimateTokens(JSON.stringify(working)) + named.reduce((n, r) => n + r.tokens, 0);
    const index = tokens < budget ? await deps.indexes.get(ctx.client, input.agentId, input.runId, input.archive.throughSeq) : undefined;
    const older = index ? index.segments.filter((r) => r.toSeq < named[0].fromSeq) : [];
    for (let i = older.length - 1; i >= 0 && tokens < budget; i--) {
      const segment = await deps.archive.readSegment(older[i]);
      archived.unshift(segment);
      tokens += older[i].tokens;
      if (hasCompaction(segment.entries)) break;
    }
  }
  const known = archived.length ? [...archived.flatMap((s) => s.entries), ...working] : working;
  return { known, base: archived[0]?.before };
}

const hasCompaction = (entries: readonly HistoryEntry[]) => entries.some((e) => (e.kind as string) === 'compaction');

/**
 * The model context, counted with the model's tokenizer when it has one. Tokenizing is CPU-bound and
 * this event loop serves every agent of the worker, so the texts are counted first, in slices (a first
 * render with the byte estimate names them), and the real render then finds every count memoised.
 */
async function renderCounted(entries: readonly HistoryEntry[], input: CallModelInput, base?: SegmentBefore): Promise<ModelContext> {
  const maxInputTokens = inputBudgetFor(input.model, input.contextWindow);
  const options: ModelContextOptions = {
    uptoSeq: input.uptoSeq,
    ...(base ? { base } : {}),
    ...(maxInputTokens !== undefined ? { maxInputTokens } : {}),
    ...(input.refusedAttachments?.length ? { refusedAttachments: input.refusedAttachments } : {}),
  };
  const counter = tokenizerFor(input.model);
  if (!counter) return renderModelContext(entries, options);
  const texts: string[] = [];
  renderModelContext(entries, { ...options, tokenizer: (text) => (texts.push(text), bytesPerTokenEstimate(text)) });
  await counter.prepare(texts);
  return renderModelContext(entries, { ...options, tokenizer: counter.count });
}
