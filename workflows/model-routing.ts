/**
 * A model call the worker that took it cannot make (no API key, or no such provider, on that worker) goes
 * to its provider's task queue, which only workers able to call that provider poll
 * (worker/provider-workers.ts). Temporal's matching gives an attempt to any poller of the agent's queue,
 * so handing the call back there leaves it to chance which worker takes the retry; the provider's queue
 * makes the worker with the key take it, even while that worker's other activity slots are busy.
 * Pure: imported by the workflow, the activity and the worker.
 */
import { ActivityFailure, ApplicationFailure, TimeoutFailure, TimeoutType } from '@temporalio/common';
import { LivecontextError } from '../agent/errors';
import { splitModelName } from '../agent/model-name';

/** Since this change a "not on this worker" model call is scheduled again on its provider's task queue. */
export const MODEL_ROUTING_CHANGE = 'model-calls-routed-to-provider-queues';

/** How long a routed call may wait for a worker of the provider's queue before the agent blocks on the first error. */
export const ROUTED_START_TIMEOUT = '30 seconds';

/** The task queue of `providerId`'s model calls beside `taskQueue` ("livecontext-agents@openai"). */
export function providerTaskQueue(taskQueue: string, providerId: string): string {
  return `${taskQueue}@${providerId}`;
}

/** The provider part of `provider:model` ('' for a name without one). */
export function providerOf(model: string): string {
  return splitModelName(model).provider;
}

/** The details of a callModel failure that says "a worker polling the provider's queue can make this call". */
export interface RoutableDetails {
  providerQueue: string;
}

/** Whether `err` (a callModel activity's failure) asks for the call to go to its provider's queue. */
export function isRoutable(err: unknown): boolean {
  if (!(err instanceof ActivityFailure) || !(err.cause instanceof ApplicationFailure)) return false;
  const details = err.cause.details?.[0] as Partial<RoutableDetails> | undefined;
  return typeof details?.providerQueue === 'string';
}

/** Whether a routed call failed because no worker of the provider's queue took it in time. */
export function notTaken(err: unknown): boolean {
  return err instanceof ActivityFailure && err.cause instanceof TimeoutFailure && err.cause.timeoutType === TimeoutType.SCHEDULE_TO_START;
}

/** The first error, saying that the provider's queue had no worker to take the call either. */
export function notTakenFailure(first: LivecontextError, queue: string): LivecontextError {
  return new LivecontextError(
    first.code,
    `${first.message} No worker polling ${queue} took the call within ${ROUTED_START_TIMEOUT}: give every worker of a task queue the same API keys, then \`retry\`.`,
  );
}
