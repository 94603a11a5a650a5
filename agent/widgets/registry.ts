/**
 * The widget registry: every kind of widget an agent has, in LiveScreen order. Adding a widget is one
 * file and one line here; the agent, its snapshot, the rebuild from history, the LiveScreen and the
 * tools offered to the model all follow from this list.
 */
import type { JsonValue } from '../entries';
import { memoryNotebookKind } from './memory-notebook';
import { taskListKind } from './task-list';
import type { Widget, WidgetKind, WidgetTool } from './widget';

export const WIDGET_KINDS: readonly WidgetKind[] = [memoryNotebookKind, taskListKind];

/** Fresh widgets, or widgets from carried state by widget name (unknown names are ignored). */
export function createWidgets(states: Readonly<Record<string, JsonValue>> = {}): Widget[] {
  return WIDGET_KINDS.map((kind) => kind.create(states[kind.name]));
}

/** Seed 000 `EnumerateWidgetTools`: every widget tool, as a read-only list. */
export function enumerateWidgetTools(): readonly WidgetTool[] {
  return WIDGET_KINDS.flatMap((kind) => kind.tools);
}

/** Widget state for a snapshot: always-carried widgets, and the others once they differ from fresh. */
export function widgetStates(widgets: readonly Widget[]): Record<string, JsonValue> {
  const out: Record<string, JsonValue> = {};
  for (const w of widgets) {
    const kind = WIDGET_KINDS.find((k) => k.name === w.name);
    const state = w.toJSON();
    if (kind?.alwaysCarried || JSON.stringify(state) !== JSON.stringify(kind?.create().toJSON())) out[w.name] = state;
  }
  return out;
}
