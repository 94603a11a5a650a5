/**
 * RenderLiveContext (seed 000): a pure projection of the history into provider-neutral context
 * messages. The workflow and the model activity call the same function, so both see the same context.
 */
import type { CompactionEntry, ContextualEntry, HistoryEntry, ToolCallRequest, ToolResultsEntry } from './entries';
import { isContextual, lastCompaction } from './entries';
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

/**
 * The newest compaction's summary, in place of every context message it covers. Rendered right after
 * the system instruction and the same at every call until the next compaction, so the prompt prefix a
 * provider caches stays byte-identical (see summaryText).
 */
export interface SummaryMessage {
  kind: 'summary';
  summary: string;
  /** The summary stands for every entry up to this seq. */
  throughSeq: number;
}

export type ContextMessage = SystemMessage | SummaryMessage | ContextualEntry | LiveScreenMessage;

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
  const compaction = lastCompaction(entries, bound);
  const covered = compaction?.throughSeq ?? 0;
  let instruction = options.systemInstruction ?? '';
  const messages: ContextMessage[] = [];
  let calls: ToolCallRequest[] = [];
  for (const entry of entries) {
    if (entry.seq > bound) break;
    if (entry.kind === 'system_instruction') instruction = entry.instruction;
    // The summary stands for what it covers.
    else if (entry.seq <= covered) continue;
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
  const head: ContextMessage[] = instruction ? [{ kind: 'system', instruction }] : [];
  if (compaction) head.push(summaryMessage(compaction));
  return [...head, ...messages];
}

function summaryMessage(c: CompactionEntry): SummaryMessage {
  return { kind: 'summary', summary: c.summary, throughSeq: c.throughSeq };
}

/** The text a summary is sent as, the same for every provider: what it is, what it covers, then the summary. */
export function summaryText(m: SummaryMessage): string {
  return `[Summary of the conversation so far: history entries #1–#${m.throughSeq}, compacted to fit the context window. The entries themselves are kept in the agent's history.]\n\n${m.summary}`;
}

/** The message a LiveScreen decorates, or the message itself. */
export function unwrap(message: ContextMessage): SystemMessage | SummaryMessage | ContextualEntry {
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
