/**
 * The widget contract (seed 003): a widget bundles a piece of agent state, the tools that change it and
 * its LiveScreen rendering. Widget tools change workflow state, so they run inside the workflow (pure,
 * synchronous); their results go into history like any tool result, which is how a widget's state can
 * be rebuilt from history alone.
 */
import type { z } from 'zod';
import type { JsonValue, Metadata } from '../entries';

export interface WidgetTool {
  name: string;
  description: string;
  /** The one schema for the model's JSON schema and for validation. */
  parameters: z.ZodType;
}

export interface WidgetToolResult {
  status: 'Success' | 'Failed';
  /** What the model sees. */
  result: string;
  /** snake_case keys, small: what changed, so history can be audited and the state rebuilt. */
  metadata?: Metadata;
}

export interface Widget {
  readonly name: string;
  readonly description: string;
  /** Read-only list of the widget's tools. */
  readonly tools: readonly WidgetTool[];
  /** A Markdown fragment for the LiveScreen, or undefined for none. */
  renderLiveScreen(): string | undefined;
  /** Runs one of `tools` (arguments not yet validated). Must not throw. */
  executeTool(toolName: string, args: unknown): WidgetToolResult;
  /** The widget's state as JSON, for snapshots. */
  toJSON(): JsonValue;
}

/** `# [Live Screen]` followed by every non-empty widget fragment, in widget order (seed 000). */
export function buildLiveScreen(widgets: readonly Widget[]): string | undefined {
  const fragments = widgets.map((w) => w.renderLiveScreen()).filter((f): f is string => !!f && f.trim() !== '');
  if (fragments.length === 0) return undefined;
  return `# [Live Screen]\n\n${fragments.join('\n\n')}`.trimEnd();
}
