/** Step dependencies for unit tests of the agent core: a model that answers from a script, tools that answer at once. */
import type { ModelCallResult, StepDeps, ToolCallRequest, ToolCallResult } from '../../agent/index';

/**
 * The model answers with `outputs` in turn, then fails with SCRIPT_EMPTY (a blocking error); each tool
 * call gets `toolResult(call)` (default: a success whose result is "ok").
 */
export function scriptedDeps(outputs: ModelCallResult[], toolResult?: (call: ToolCallRequest) => ToolCallResult): StepDeps {
  return {
    async callModel() {
      const next = outputs.shift();
      if (!next) throw Object.assign(new Error('script ran out'), { code: 'SCRIPT_EMPTY' });
      return next;
    },
    async executeTool(call) {
      return toolResult?.(call) ?? { toolCallId: call.toolCallId, toolName: call.toolName, status: 'Success', result: 'ok' };
    },
  };
}

/** The invocation a scripted model output names. */
export const FAKE_INVOCATION = { providerId: 'fake', specification: 'fake', model: 'm' };

/** A clock that moves one second on at each reading, from 2026-01-01. */
export function tickingClock(): () => number {
  let now = Date.UTC(2026, 0, 1);
  return () => (now += 1000);
}
