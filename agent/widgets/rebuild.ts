/**
 * Widget state from history alone, for any widget: replays every successful call of a widget's tools
 * and every host write to it, in order. The model activity uses this to render the LiveScreen as it was
 * at any sequence bound; the result equals the state the workflow holds.
 */
import type { HistoryEntry, JsonValue, ToolCallRequest } from '../entries';
import { parseToolArguments } from '../lenient-args';
import type { MemoryNotebookWidget } from './memory-notebook';
import { createWidgets } from './registry';
import type { Widget } from './widget';

/**
 * The widgets of an agent as they were at `uptoSeq`. `base`: widget states before the first of `entries`
 * (the archive's, when older entries are archived; fresh widgets otherwise).
 */
export function rebuildWidgets(entries: readonly HistoryEntry[], uptoSeq = Number.POSITIVE_INFINITY, base?: Readonly<Record<string, JsonValue>>): Widget[] {
  const widgets = createWidgets(base);
  const owner = (toolName: string) => widgets.find((w) => w.tools.some((t) => t.name === toolName));
  let calls: ToolCallRequest[] = [];
  for (const entry of entries) {
    if (entry.seq > uptoSeq) break;
    if (entry.kind === 'model_output') calls = entry.toolCalls;
    if (entry.kind === 'widget_write') widgets.find((w) => w.name === entry.widget)?.applyHostWrite?.(entry.write);
    if (entry.kind !== 'tool_results') continue;
    for (const result of entry.results) {
      if (result.status !== 'Success') continue;
      const widget = owner(result.toolName);
      const call = calls.find((c) => c.toolCallId === result.toolCallId);
      if (!widget || !call) continue;
      // Parsed as leniently as the widget parsed them when the call ran, so repaired calls are rebuilt too.
      const tool = widget.tools.find((t) => t.name === result.toolName)!;
      const args = parseToolArguments(tool.parameters, call);
      if (args.ok) widget.executeTool(result.toolName, args.data);
    }
  }
  return widgets;
}

/** The notebook's text at `uptoSeq`, from history alone. */
export function rebuildNotebook(entries: readonly HistoryEntry[], uptoSeq?: number): string {
  return (rebuildWidgets(entries, uptoSeq).find((w) => w.name === 'memory_notebook') as MemoryNotebookWidget).content;
}
