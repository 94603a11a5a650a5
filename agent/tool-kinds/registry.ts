/**
 * The tool kind registry: every kind of tool call, in the order a call is offered to them — the first
 * kind that recognises it, is allowed it and is in force for this run takes it. Adding a kind is one
 * file and one line here. The order is part of what recorded histories replay: a sub-agent profile
 * named `user` takes `ask_user`, and an activity takes what no other kind took.
 */
import { activityToolKind } from './activity-tool';
import { askUserKind } from './ask-user';
import { subAgentKind } from './sub-agent';
import { timerKind } from './timers';
import type { OfferedTool, ToolKind } from './tool-kind';
import { widgetToolKind } from './widget-tools';

export const TOOL_KINDS: readonly ToolKind[] = [subAgentKind, widgetToolKind, timerKind, askUserKind, activityToolKind];

/** The tools that run in the workflow and are offered whatever the agent's configuration (widgets, timers, ask_user), in offering order. */
export function inWorkflowTools(): readonly OfferedTool[] {
  return TOOL_KINDS.flatMap((kind) => kind.tools ?? []);
}
