/**
 * The widget contract (seed 003): a widget bundles a piece of agent state, the tools that change it and
 * its LiveScreen rendering. Widget tools change workflow state, so they run inside the workflow (pure,
 * synchronous); their results go into history like any tool result, and so do writes by the host
 * (`widget_write` entries) — which is how any widget's state can be rebuilt from history alone.
 */
import type { z } from 'zod';
import type { HistoryEntry, JsonValue, Metadata } from '../entries';

export interface WidgetTool {
  name: string;
  description: string;
  /** The one schema for the model's JSON schema and for validation. */
  parameters: z.ZodType;
}

export interface WidgetToolResult {
  status: 'Success' | 'Failed';
  /** What the model sees (for a host write: what the host is told). */
  result: string;
  /** snake_case keys, small: what changed, so history can be audited and the state rebuilt. */
  metadata?: Metadata;
}

/** Seed 003 `WidgetRenderContext`: a read-only view of the agent for rendering. */
export interface WidgetRenderContext {
  /** The history up to the bound being rendered. */
  readonly entries: readonly HistoryEntry[];
  /** Every widget's state at that bound, by widget name. */
  readonly widgets: Readonly<Record<string, JsonValue>>;
}

export interface Widget {
  readonly name: string;
  readonly description: string;
  /** Read-only list of the widget's tools. */
  readonly tools: readonly WidgetTool[];
  /** A Markdown fragment for the LiveScreen, or undefined for none. */
  renderLiveScreen(context: WidgetRenderContext): string | undefined;
  /** Runs one of `tools` (arguments not yet validated). Must not throw; must be deterministic. */
  executeTool(toolName: string, args: unknown): WidgetToolResult;
  /**
   * Why a call of the model's (validated arguments) would take the widget past its size bound, if it
   * would: the widget is carried by every run and shown in every model call, so it must not grow with
   * the agent's age. Checked when the call runs, never when history is rebuilt (what ran, ran).
   */
  overLimit?(toolName: string, args: unknown): string | undefined;
  /**
   * A write by the host (not the model), e.g. replacing the notebook (seed 000 `UpdateMemoryNotebook`).
   * Validates `write` and applies it; must not throw. Widgets without host writes leave it out.
   */
  applyHostWrite?(write: unknown): WidgetToolResult;
  /** The widget's state as JSON, for snapshots and for other widgets' rendering. */
  toJSON(): JsonValue;
}

/** A kind of widget in the registry: how to make one, fresh or from its carried state. */
export interface WidgetKind {
  readonly name: string;
  /** The tools, without an instance (for the specs offered to the model). */
  readonly tools: readonly WidgetTool[];
  /** A widget from its carried state; a fresh one when `state` is undefined (or not this kind's). */
  create(state?: JsonValue): Widget;
  /**
   * Whether a snapshot must carry this widget's state even when it is as fresh (the notebook always was
   * carried; a task list only once it has tasks), so snapshots of agents that never use it stay as they were.
   */
  readonly alwaysCarried?: boolean;
  /**
   * The change (a `patched()` id) that brought this widget to agents that already run: a history recorded
   * before it ran a call of this name as an ordinary tool, and must replay so.
   */
  readonly since?: string;
}

/** `# [Live Screen]` followed by every non-empty widget fragment, in widget order (seed 000). */
export function buildLiveScreen(widgets: readonly Widget[], entries: readonly HistoryEntry[] = []): string | undefined {
  const context: WidgetRenderContext = { entries, widgets: Object.fromEntries(widgets.map((w) => [w.name, w.toJSON()])) };
  const fragments = widgets.map((w) => w.renderLiveScreen(context)).filter((f): f is string => !!f && f.trim() !== '');
  if (fragments.length === 0) return undefined;
  return `# [Live Screen]\n\n${fragments.join('\n\n')}`.trimEnd();
}
