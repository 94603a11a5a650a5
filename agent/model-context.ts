/**
 * What one model call sees, from history alone: the widgets rebuilt as they were at `uptoSeq`, the
 * LiveScreen they render, the projection of seed 000, and the token budget. Pure; the model activity
 * calls it with the entries it fetched, and the same entries always give the same context.
 */
import { chooseCompaction } from './compaction';
import { fitToBudget } from './context-budget';
import type { HistoryEntry, JsonValue } from './entries';
import { type ContextMessage, renderLiveContext } from './live-context';
import type { RefusedAttachment } from './refused-attachments';
import { type TextTokenizer, bytesPerTokenEstimate, calibrationFactor, countMessageTokens } from './token-estimate';
import { buildLiveScreen, rebuildWidgets } from './widgets/index';
import { visibleEntries } from './time-travel';

export interface ModelContext {
  /** The system instruction in force, if any (providers put it where their protocol wants it). */
  system?: string;
  /** Context messages without the system message. */
  messages: ContextMessage[];
  liveScreen?: string;
  /** Uncalibrated estimate of everything sent; recorded so later calls can calibrate. */
  estimatedInputTokens: number;
  /** History messages left out to fit the budget. */
  dropped: number;
  /**
   * Policy `compact`, over the threshold: summarise through this seq before calling the model (see
   * chooseCompaction). The context is then not trimmed.
   */
  compactThrough?: number;
  /** Calibrated tokens of the context, as measured against the threshold (policy `compact`, with a budget). */
  calibratedInputTokens?: number;
}

export interface ModelContextOptions {
  uptoSeq: number;
  /** Input token budget (context window minus the output reserve); none = no trimming. */
  maxInputTokens?: number;
  tokenizer?: TextTokenizer;
  /** Attachments a provider refused (see refused-attachments). */
  refusedAttachments?: readonly RefusedAttachment[];
  /**
   * Policy `compact`: the share of `maxInputTokens` over which a compaction is asked for (`compactThrough`);
   * the context is never trimmed. Absent: policy `trim`.
   */
  compactAt?: number;
  /** No more compactions this step: over the threshold the context is sent as it is. */
  compactionsDone?: boolean;
  /** State before the first of `entries` when older entries are archived (a segment's `before`). */
  base?: { systemInstruction: string; widgets: Readonly<Record<string, JsonValue>> };
}

export function renderModelContext(all: readonly HistoryEntry[], options: ModelContextOptions): ModelContext {
  const entries = visibleEntries(all, options.uptoSeq); // what a rewind took out is not the model's
  const tokenizer = options.tokenizer ?? bytesPerTokenEstimate;
  const liveScreen = buildLiveScreen(rebuildWidgets(entries, options.uptoSeq, options.base?.widgets));
  const rendered = renderLiveContext(entries, {
    uptoSeq: options.uptoSeq,
    ...(options.base?.systemInstruction ? { systemInstruction: options.base.systemInstruction } : {}),
    liveScreen,
    ...(options.refusedAttachments?.length ? { refusedAttachments: options.refusedAttachments } : {}),
  });
  const factor = calibrationFactor(entries, options.uptoSeq);
  const count = (m: ContextMessage) => Math.ceil(countMessageTokens(m, tokenizer) * factor);
  const budget = options.maxInputTokens;
  const compacting = options.compactAt !== undefined && budget !== undefined;
  const fitted = budget === undefined || compacting ? { messages: rendered, dropped: 0 } : fitToBudget(rendered, budget, count);
  const estimatedInputTokens = fitted.messages.reduce((n, m) => n + countMessageTokens(m, tokenizer), 0);
  const [first, ...rest] = fitted.messages;
  const context: ModelContext =
    first?.kind === 'system'
      ? { system: first.instruction, messages: rest, estimatedInputTokens, dropped: fitted.dropped }
      : { messages: fitted.messages, estimatedInputTokens, dropped: fitted.dropped };
  if (liveScreen) context.liveScreen = liveScreen;
  if (compacting) {
    const calibrated = rendered.reduce((n, m) => n + count(m), 0);
    context.calibratedInputTokens = calibrated;
    if (calibrated > options.compactAt! * budget! && !options.compactionsDone) {
      // Down to half the threshold, so the next compaction is as far away as the first was.
      const through = chooseCompaction(rendered, Math.floor((options.compactAt! * budget!) / 2), count);
      if (through !== undefined) context.compactThrough = through;
    }
  }
  return context;
}
