/**
 * How errors cross between Temporal and the agent core: activity failures become the agent's errors, the
 * agent's refusals become final update rejections, an interrupt's cancellation is told apart from a
 * failure, and a result this worker cannot decode is never taken for the activity's answer.
 */
import { ActivityFailure, ApplicationFailure, isCancellation } from '@temporalio/workflow';
import { InfrastructureError, LivecontextError, undecodableReason } from '../../agent/index';

/** What the step's activities throw when an interrupt cancelled them (not recorded as their failure). */
export const STEP_CANCELLED = 'STEP_CANCELLED';

/** Whether a step ended because it was cancelled (by an interrupt), not because it failed. */
export function wasCancelled(err: unknown): boolean {
  return isCancellation(err) || (err instanceof InfrastructureError && err.code === STEP_CANCELLED);
}

/** Activity failures arrive wrapped; the agent records the innermost application error's type and message. */
export function toAgentFailure(err: unknown): LivecontextError {
  let cause: unknown = err;
  while (cause instanceof ActivityFailure && cause.cause) cause = cause.cause;
  if (cause instanceof ApplicationFailure) {
    return new LivecontextError(cause.type ?? 'ACTIVITY_FAILED', cause.message);
  }
  return new LivecontextError('ACTIVITY_FAILED', cause instanceof Error ? cause.message : String(cause));
}

/**
 * A model call's failure as toAgentFailure gives it, with `attempts` when Temporal's retries ran out
 * (the call ran `maximumAttempts` times); the agent records them in its model_failure entry. A
 * non-retryable failure does not say on which attempt it came, so it has none.
 */
export function modelCallFailure(err: unknown, maximumAttempts: number | undefined): LivecontextError {
  const failure = toAgentFailure(err);
  if (err instanceof ActivityFailure && err.retryState === 'MAXIMUM_ATTEMPTS_REACHED' && maximumAttempts) Object.assign(failure, { attempts: maximumAttempts });
  return failure;
}

/** The innermost message of a child workflow's failure ("Cannot start the agent: …", "Workflow execution terminated"). */
export function failureText(err: unknown): string {
  let cause: unknown = err;
  while (cause instanceof Error && (cause as { cause?: unknown }).cause instanceof Error) cause = (cause as { cause: unknown }).cause;
  return cause instanceof Error ? cause.message : String(cause);
}

/** An activity result this worker could not decode is not the activity's answer: see InfrastructureError. */
export function decoded<T>(result: T, what: string): T {
  const reason = undecodableReason(result);
  if (reason !== undefined) throw new InfrastructureError('UNDECODABLE_RESULT', `This worker cannot decode the result of ${what}: ${reason}`);
  return result;
}

/**
 * An update validator whose refusals are final: the same input would be refused again, so the error
 * says so (`nonRetryable`), with the refusal's code as its type.
 */
export function refusing<A>(validate: (arg: A) => void): (arg: A) => void {
  return (arg) => {
    try {
      validate(arg);
    } catch (err) {
      if (err instanceof LivecontextError) throw ApplicationFailure.create({ type: err.code, message: err.message, nonRetryable: true });
      throw err;
    }
  };
}
