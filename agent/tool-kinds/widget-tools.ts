/**
 * Widget tools (seed 003): they change agent state, so they run here, in the workflow, deterministically.
 * Each widget kind may have come to agents that already ran (`WidgetKind.since`): a history recorded
 * before it ran a call of that name as an ordinary tool, and replays so.
 */
import { parseToolArguments } from '../lenient-args';
import { NOTEBOOK_CAP_CHANGE, WIDGET_KINDS, type Widget, enumerateWidgetTools } from '../widgets/index';
import { type ToolKind, callBase, withMetadata } from './tool-kind';

export const widgetToolKind: ToolKind<Widget> = {
  name: 'widget',
  allowedBy: 'allowance',
  tools: enumerateWidgetTools(),
  recognise: ({ call, host }) => host.widgets.find((w) => w.tools.some((t) => t.name === call.toolName)),
  change: (widget) => WIDGET_KINDS.find((k) => k.name === widget.name)?.since,
  async run({ call, deps }, widget) {
    const base = callBase(call);
    const tool = widget.tools.find((t) => t.name === call.toolName)!;
    const args = parseToolArguments(tool.parameters, call);
    if (!args.ok) return { ...base, status: 'Failed', result: args.message, elapsedMs: 0 };
    // A widget stays bounded however long the agent lives; histories from before the bound replay as they ran.
    const over = widget.overLimit?.(call.toolName, args.data);
    if (over && (!deps.since || deps.since(NOTEBOOK_CAP_CHANGE))) return { ...base, status: 'Failed', result: over, elapsedMs: 0 };
    const out = widget.executeTool(call.toolName, args.data);
    deps.log?.('Widgets', `${widget.name}.${call.toolName} -> ${out.status}`, out.metadata);
    return withMetadata({ ...base, status: out.status, result: out.result, elapsedMs: 0 }, out.metadata);
  },
};
