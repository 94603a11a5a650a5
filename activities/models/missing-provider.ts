/**
 * A model call this worker cannot make: its provider has no API key here (or is not registered here).
 * Workers on one task queue should have the same keys, but a second `npm start` with another environment,
 * or a rolling deploy, joins the queue all the same, and whichever worker takes the activity would
 * decide the call. So, as for a missing tool (tools/missing-tool.ts), the failure is retryable for a
 * bounded number of attempts and time, with short delays, so that a worker that has the key can take a
 * retry; only then does the agent block on it, saying that no worker of the queue had it.
 */
import { ApplicationFailure } from '@temporalio/common';
import { type AttemptInfo, shouldPassOn } from '../tools/missing-tool';
import type { Client } from '@temporalio/client';
import { listPollers } from '../../common/task-queue-pollers';
import type { ModelRouter } from './model-router';
import { ModelError } from './provider-errors';
import { type RoutableDetails, providerOf, providerTaskQueue } from '../../workflows/model-routing';

/** The failure types that say "not on this worker", not "not at all". */
const NOT_HERE = new Set<string>([ModelError.MissingApiKey, 'UNKNOWN_PROVIDER']);
const FIRST_DELAY_MS = 500;
const MAX_DELAY_MS = 4000;

/**
 * `router.resolve(name)`, with a missing key or provider handed to another worker. When the agent can
 * route the call (`routedQueue` is given) and a worker polls the provider's queue, the failure names that
 * queue and the agent schedules the call there (workflows/model-routing.ts). Otherwise, as for an agent
 * whose code predates routing, the call is handed back to the agent's queue while attempts remain and
 * `othersPoll()` says another worker polls it (alone, the worker says so at once, as before).
 */
export async function resolveOrPassOn(
  router: ModelRouter,
  name: string,
  attempt: AttemptInfo,
  othersPoll: () => Promise<boolean>,
  routedQueue?: () => Promise<string | undefined>,
): Promise<ReturnType<ModelRouter['resolve']>> {
  try {
    return router.resolve(name);
  } catch (err) {
    if (!(err instanceof ApplicationFailure) || !NOT_HERE.has(err.type ?? '')) throw err;
    const queue = routedQueue && (await routedQueue().catch(() => undefined));
    if (queue) {
      const details: RoutableDetails = { providerQueue: queue };
      throw ApplicationFailure.create({ type: err.type!, nonRetryable: true, message: err.message, details: [details] });
    }
    if (!(attempt.attempt > 1 || (await othersPoll().catch(() => true)))) throw err;
    const now = Date.now();
    if (shouldPassOn(attempt, now)) {
      throw ApplicationFailure.create({
        type: err.type!,
        message: `${err.message} (attempt ${attempt.attempt}; another worker on the task queue may have it)`,
        nextRetryDelay: Math.min(FIRST_DELAY_MS * 2 ** (attempt.attempt - 1), MAX_DELAY_MS),
      });
    }
    const seconds = Math.round((now - attempt.firstScheduledMs) / 1000);
    throw ApplicationFailure.create({
      type: err.type!,
      nonRetryable: true,
      message: `${err.message} No worker on this task queue could make the call in ${attempt.attempt} attempts over ${seconds} s: give every worker of a task queue the same API keys, then \`retry\`.`,
    });
  }
}

/** Whether more than one worker (by identity) polls `taskQueue` for activities: this one and another. */
export async function otherActivityWorkers(client: Client, namespace: string, taskQueue: string): Promise<boolean> {
  return (await listPollers(client, namespace, taskQueue)).filter((p) => p.activities).length > 1;
}

/** `providerTaskQueue(taskQueue, provider of model)` when a worker polls it for activities, else undefined. */
export async function polledProviderQueue(client: Client, namespace: string, taskQueue: string, model: string): Promise<string | undefined> {
  const queue = providerTaskQueue(taskQueue, providerOf(model));
  return (await listPollers(client, namespace, queue)).some((p) => p.activities) ? queue : undefined;
}
