/**
 * Durable waiting as tools: `sleep` and `wait_until` run inside the workflow on a Temporal timer, so an
 * agent can pause for hours or days and carry on at the right time, across worker restarts.
 */
import { z } from 'zod';

/** The longest single wait: a year. */
export const MAX_SLEEP_SECONDS = 365 * 24 * 3600;

export const SleepArgs = z
  .object({
    seconds: z.number().positive().max(MAX_SLEEP_SECONDS).describe('How long to wait, in seconds'),
    reason: z.string().optional().describe('Why (shown in the history)'),
  })
  .strict();

export const WaitUntilArgs = z
  .object({
    time: z.string().describe('ISO-8601 date-time to wait for, e.g. 2026-12-01T09:00:00Z'),
    reason: z.string().optional(),
  })
  .strict();

export const TIMER_TOOLS = [
  {
    name: 'sleep',
    description: 'Pause for a number of seconds (durably: survives restarts), then continue.',
    parameters: SleepArgs,
  },
  {
    name: 'wait_until',
    description: 'Pause until a given date-time (durably: survives restarts), then continue.',
    parameters: WaitUntilArgs,
  },
] as const;

export type TimerToolName = (typeof TIMER_TOOLS)[number]['name'];

export function isTimerTool(name: string): name is TimerToolName {
  return TIMER_TOOLS.some((t) => t.name === name);
}
