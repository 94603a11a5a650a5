/**
 * Token estimates for the context budget. The base estimate is UTF-8 bytes / 4 (or a real tokenizer,
 * injected by the caller); it is calibrated by what the provider reported for the previous call:
 * every model output records the estimate it was sent with, next to the input tokens the provider
 * counted, so the ratio comes from recorded history and is the same on every replay.
 */
import { utf8Length } from './agent-state';
import { attachmentLabel, imageTokens } from './attachments';
import type { HistoryEntry } from './entries';
import { type ContextMessage, summaryText, unwrap } from './live-context';

/** Counts tokens of a text. */
export type TextTokenizer = (text: string) => number;

export const bytesPerTokenEstimate: TextTokenizer = (text) => Math.ceil(utf8Length(text) / 4);

/** Per-message framing the providers add (role markers and separators). */
const MESSAGE_OVERHEAD_TOKENS = 4;

/** The text a message contributes to the model's input. */
export function messageText(message: ContextMessage): string {
  const parts: string[] = [];
  if (message.kind === 'live_screen') parts.push(message.liveScreen);
  const m = unwrap(message);
  switch (m.kind) {
    case 'system':
      parts.push(m.instruction);
      break;
    case 'summary':
      parts.push(summaryText(m));
      break;
    case 'model_input':
      for (const s of m.sections) parts.push(s.title, s.content);
      // Names only: an image's base64 is not text the model reads (see attachmentTokens).
      for (const a of m.attachments ?? []) parts.push(attachmentLabel(a) ?? '');
      break;
    case 'model_output':
      parts.push(...m.contents, m.thinking ?? '');
      for (const c of m.toolCalls) parts.push(c.toolName, c.rawArguments);
      break;
    case 'tool_results':
      for (const r of m.results) parts.push(r.toolName, r.result);
      if (m.executeError) parts.push(m.executeError);
      break;
  }
  return parts.join('\n');
}

export function countMessageTokens(message: ContextMessage, tokenizer: TextTokenizer = bytesPerTokenEstimate): number {
  return tokenizer(messageText(message)) + attachmentTokens(message) + MESSAGE_OVERHEAD_TOKENS;
}

/** Tokens of a message's images, by their size in pixels (what providers charge), not their base64 length. */
export function attachmentTokens(message: ContextMessage): number {
  const m = unwrap(message);
  return m.kind === 'model_input' ? (m.attachments ?? []).reduce((n, a) => n + imageTokens(a), 0) : 0;
}

/**
 * Reported input tokens / estimated input tokens of the newest model output that has both,
 * clamped to [0.25, 4]; 1 when there is none.
 */
export function calibrationFactor(entries: readonly HistoryEntry[], uptoSeq = Number.POSITIVE_INFINITY): number {
  for (let i = entries.length - 1; i >= 0; i--) {
    const e = entries[i];
    if (e.seq > uptoSeq || e.kind !== 'model_output') continue;
    const estimated = e.metadata?.estimated_input_tokens;
    const reported = e.usage?.inputTokens;
    if (typeof estimated === 'number' && estimated > 0 && reported && reported > 0) {
      return Math.min(4, Math.max(0.25, reported / estimated));
    }
  }
  return 1;
}
