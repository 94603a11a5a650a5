/**
 * `sleep` and `wait_until` in the workflow, on a durable timer (StepDeps.sleep). The timer is kept in the
 * agent's state (`host.timers`) from its start, so a wait interrupted by a new run resumes where it was.
 * Without `deps.sleep` (a host with no timers) the call runs as an ordinary tool.
 */
import { parseToolArguments } from '../lenient-args';
import { MAX_SLEEP_SECONDS, SleepArgs, TIMER_TOOLS, WaitUntilArgs, isTimerTool } from '../timer-tools';
import { INTERRUPTED, type ToolKind, callBase } from './tool-kind';

export const timerKind: ToolKind<true> = {
  name: 'timer',
  allowedBy: 'allowance',
  tools: TIMER_TOOLS,
  recognise: ({ call, deps }) => (isTimerTool(call.toolName) && deps.sleep ? true : undefined),
  async run({ call, host, deps }) {
    const base = callBase(call);
    let timer = host.timers[call.toolCallId];
    if (!timer) {
      const startedAt = host.clock();
      let wakeAt: number;
      if (call.toolName === 'sleep') {
        const args = parseToolArguments(SleepArgs, call);
        if (!args.ok) return { ...base, status: 'Failed', result: args.message };
        wakeAt = startedAt + args.data.seconds * 1000;
      } else {
        const args = parseToolArguments(WaitUntilArgs, call);
        if (!args.ok) return { ...base, status: 'Failed', result: args.message };
        const at = Date.parse(args.data.time);
        if (Number.isNaN(at)) return { ...base, status: 'Failed', result: `"${args.data.time}" is not an ISO-8601 date-time.` };
        if (at - startedAt > MAX_SLEEP_SECONDS * 1000) {
          return {
            ...base,
            status: 'Failed',
            result: `${args.data.time} is more than a year away; wait at most a year at a time (until ${new Date(startedAt + MAX_SLEEP_SECONDS * 1000).toISOString()}).`,
          };
        }
        wakeAt = Math.max(startedAt, at);
      }
      timer = { startedAt: new Date(startedAt).toISOString(), wakeAt: new Date(wakeAt).toISOString() };
      host.timers[call.toolCallId] = timer;
    }
    const startedAt = Date.parse(timer.startedAt);
    const wakeAt = Date.parse(timer.wakeAt);
    const left = wakeAt - host.clock();
    if (left > 0 && (await deps.sleep!(left)) === false) return INTERRUPTED;
    delete host.timers[call.toolCallId];
    const ms = wakeAt - startedAt;
    const now = host.clock();
    return {
      ...base,
      status: 'Success',
      result: `Waited ${Math.round(ms / 1000)} s; it is now ${new Date(now).toISOString()}.`,
      elapsedMs: now - startedAt,
      metadata: { waited_ms: ms },
    };
  },
};
