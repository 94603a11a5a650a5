/**
 * RenderLiveContext (seed 000): a pure projection of the history into provider-neutral context
 * messages. The workflow and the model activity call the same function, so both see the same context.
 */
import type { ContextualEntry, HistoryEntry, ToolCallRequest, ToolResultsEntry } from './entries';
import { isContextual } from './entries';
import { type RefusedAttachment, withoutRefused } from './refused-attachments';

/** The system instruction in force (seed 000 ISystemMessage). */
export interface SystemMessage {
  kind: 'system';
  instruction: string;
}

/**
 * A message carrying the LiveScreen. Consumers unwrap `inner` first, then match on its kind
 * (seed 000 "LiveScreen 处理约定").
 */
export interface LiveScreenMessage {
  kind: 'live_screen';
  liveScreen: string;
  inner: ContextualEntry;
}

export type ContextMessage = SystemMessage | ContextualEntry | LiveScreenMessage;

export interface RenderOptions {
  /** Render the history as it was at this sequence number (inclusive). Default: all of it. */
  uptoSeq?: number;
  /** LiveScreen text to attach to the newest model input or tool results message. */
  liveScreen?: string;
  /** Attachments a provider refused: left out, with a note the model reads (see refused-attachments). */
  refusedAttachments?: readonly RefusedAttachment[];
  /** The instruction in force before the first of `entries` (when older entries are archived). */
  systemInstruction?: string;
}

export function renderLiveContext(entries: readonly HistoryEntry[], options: RenderOptions = {}): ContextMessage[] {
  const bound = options.uptoSeq ?? Number.POSITIVE_INFINITY;
  let instruction = options.systemInstruction ?? '';
  const messages: ContextMessage[] = [];
  let calls: ToolCallRequest[] = [];
  for (const entry of entries) {
    if (entry.seq > bound) break;
    if (entry.kind === 'system_instruction') instruction = entry.instruction;
    else if (entry.kind === 'tool_results') messages.push(answerEveryCall(entry, calls));
    else if (entry.kind === 'model_input') messages.push(withoutRefused(entry, options.refusedAttachments));
    else if (isContextual(entry)) messages.push(entry);
    if (entry.kind === 'model_output') calls = entry.toolCalls;
  }
  if (options.liveScreen) {
    for (let i = messages.length - 1; i >= 0; i--) {
      const m = messages[i] as ContextualEntry;
      if (m.kind === 'model_input' || m.kind === 'tool_results') {
        messages[i] = { kind: 'live_screen', liveScreen: options.liveScreen, inner: m };
        break;
      }
    }
  }
  return instruction ? [{ kind: 'system', instruction }, ...messages] : messages;
}

/** The message a LiveScreen decorates, or the message itself. */
export function unwrap(message: ContextMessage): SystemMessage | ContextualEntry {
  return message.kind === 'live_screen' ? message.inner : message;
}

/**
 * Providers want every tool call answered. A batch that could not run as a whole (seed 000 ExecuteError)
 * has no results: each call is shown as failed with the batch's reason.
 */
function answerEveryCall(entry: ToolResultsEntry, calls: readonly ToolCallRequest[]): ToolResultsEntry {
  if (entry.results.length > 0 || !entry.executeError) return entry;
  const reason = `Not run: ${entry.executeError}`;
  return { ...entry, results: calls.map((c) => ({ toolCallId: c.toolCallId, toolName: c.toolName, status: 'Failed' as const, result: reason })) };
}
