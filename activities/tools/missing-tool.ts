/**
 * A tool call this worker cannot run because it has no such tool. Workers on one task queue should all
 * register the same tools, but during a rolling deploy (or by mistake) they may not, and whichever worker
 * takes the activity would decide the result. So a missing tool is a retryable activity failure, for a
 * bounded number of attempts and time, so that a worker that has the tool can take a retry; only then
 * is it a Failed result, recorded for good.
 */
import { ApplicationFailure } from '@temporalio/common';

/** Upper bound on attempts when the activity's retry policy allows more (or unlimited). */
export const MISSING_TOOL_MAX_ATTEMPTS = 10;
/** After this long since the first attempt was scheduled, the next attempt gives up at once. */
export const MISSING_TOOL_MAX_WAIT_MS = 60 * 1000;
/**
 * Hand-back delays: 0.5 s doubling up to 4 s, shorter than the policy's backoff (meant for dead
 * workers), so a model's made-up tool name costs seconds, not a quarter of a minute.
 */
const FIRST_DELAY_MS = 500;
const MAX_DELAY_MS = 4000;
export const MISSING_TOOL_FAILURE_TYPE = 'ToolNotOnThisWorker';

export interface AttemptInfo {
  attempt: number;
  /** The policy's maximumAttempts; 0 or absent = unlimited. */
  maximumAttempts?: number;
  /** When the first attempt was scheduled (ms since the epoch). */
  firstScheduledMs: number;
}

/** Whether this attempt should hand the call back to the task queue rather than record a result. */
export function shouldPassOn(info: AttemptInfo, now = Date.now()): boolean {
  const lastAttempt = Math.min(info.maximumAttempts || MISSING_TOOL_MAX_ATTEMPTS, MISSING_TOOL_MAX_ATTEMPTS);
  return info.attempt < lastAttempt && now - info.firstScheduledMs < MISSING_TOOL_MAX_WAIT_MS;
}

export function passOn(toolName: string, info: AttemptInfo): ApplicationFailure {
  return ApplicationFailure.create({
    message: `This worker has no tool "${toolName}" (attempt ${info.attempt}); another worker on the task queue may have it.`,
    type: MISSING_TOOL_FAILURE_TYPE,
    nextRetryDelay: Math.min(FIRST_DELAY_MS * 2 ** (info.attempt - 1), MAX_DELAY_MS),
  });
}

export function missingToolMessage(toolName: string, available: readonly string[], info: AttemptInfo, now = Date.now()): string {
  const seconds = Math.round((now - info.firstScheduledMs) / 1000);
  return (
    `Unknown tool "${toolName}". Available tools: ${available.join(', ') || '(none)'}. ` +
    `(No worker on this task queue offered it in ${info.attempt} attempts over ${seconds} s; every worker on a task queue should register the same tools.)`
  );
}
