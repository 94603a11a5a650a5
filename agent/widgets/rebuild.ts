/**
 * Widget state from history alone: replays every successful widget tool call, in order. The activity
 * uses this to render the LiveScreen as it was at any sequence bound.
 */
import type { HistoryEntry, ToolCallRequest } from '../entries';
import { parseToolArguments } from '../lenient-args';
import { MEMORY_NOTEBOOK_REPLACE, MemoryNotebookWidget, NotebookReplaceArgs, applyNotebookReplace } from './memory-notebook';
import type { Widget } from './widget';

export function rebuildNotebook(entries: readonly HistoryEntry[], uptoSeq = Number.POSITIVE_INFINITY): string {
  let content = '';
  let calls: ToolCallRequest[] = [];
  for (const entry of entries) {
    if (entry.seq > uptoSeq) break;
    if (entry.kind === 'model_output') calls = entry.toolCalls;
    if (entry.kind !== 'tool_results') continue;
    for (const result of entry.results) {
      if (result.toolName !== MEMORY_NOTEBOOK_REPLACE || result.status !== 'Success') continue;
      const call = calls.find((c) => c.toolCallId === result.toolCallId);
      // Parsed as leniently as the widget parsed them when the edit ran, so repaired edits are rebuilt too.
      const args = call ? parseToolArguments(NotebookReplaceArgs, call) : undefined;
      if (!args?.ok) continue;
      const edit = applyNotebookReplace(content, args.data);
      if (edit.ok) content = edit.content;
    }
  }
  return content;
}

/** The widgets of an agent as they were at `uptoSeq`. */
export function rebuildWidgets(entries: readonly HistoryEntry[], uptoSeq?: number): Widget[] {
  return [new MemoryNotebookWidget(rebuildNotebook(entries, uptoSeq))];
}
