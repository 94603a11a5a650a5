/**
 * Before a model call streams: the entries this worker lacks (the entry cache asks the agent for them),
 * the context rendered with the same pure function the workflow's history defines and counted with the
 * model's tokenizer, the typed-answer schema the turn's input asks for, and whether the archive's tools are offered.
 */
import type { Context } from '@temporalio/activity';
import {
  type HistoryEntry,
  type ModelContext,
  type ModelContextOptions,
  bytesPerTokenEstimate,
  renderModelContext,
  turnResponseSchema,
} from '../../agent/index';
import type { EntryCache } from '../entry-cache';
import { inputBudgetFor, tokenizerFor } from '../models/context-window';
import type { CallModelInput } from '../types';
import { offersArchiveTools } from './archive-offer';

export async function prepareContext(
  entries: EntryCache,
  ctx: Context,
  input: CallModelInput,
): Promise<{ context: ModelContext; responseSchema: ReturnType<typeof turnResponseSchema>; archived: boolean }> {
  // The entries query waits for the agent's workflow worker, and a large context takes a while to
  // count; together they can outlast the heartbeat timeout, which would retry a call not yet started.
  const preparing = setInterval(() => ctx.heartbeat(), 1000);
  return entries
    .range(ctx.client, input.agentId, input.runId, 0, input.uptoSeq)
    .then(async (known) => ({
      context: await renderCounted(known, input),
      responseSchema: turnResponseSchema(known),
      archived: offersArchiveTools(input, known),
    }))
    .finally(() => clearInterval(preparing));
}

/**
 * The model context, counted with the model's tokenizer when it has one. Tokenizing is CPU-bound and
 * this event loop serves every agent of the worker, so the texts are counted first, in slices (a first
 * render with the byte estimate names them), and the real render then finds every count memoised.
 */
async function renderCounted(entries: readonly HistoryEntry[], input: CallModelInput): Promise<ModelContext> {
  const maxInputTokens = inputBudgetFor(input.model, input.contextWindow);
  const options: ModelContextOptions = {
    uptoSeq: input.uptoSeq,
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
