/**
 * Model calls routed by provider (workflows/model-routing.ts): beside the agents' task queue, a worker
 * polls `<queue>@<provider>` for each provider it can call (its key is set, or it registered the
 * provider), running only the callModel activity there. A call that a worker without the key took goes
 * to that queue, where only a worker with the key can take it. One small activity-only Temporal Worker
 * per provider (a TypeScript Worker polls one queue); the offline `demo` provider needs none, as every
 * worker has it.
 */
import type { LogMetadata, Logger } from '@temporalio/common';
import { Worker, type WorkerOptions } from '@temporalio/worker';
import type { ModelRouter } from '../activities/index';
import { providerTaskQueue } from '../workflows/model-routing';

/** Providers every worker can call: no call to them is ever routed. */
const EVERYWHERE = new Set(['demo']);

/** A few pollers per provider queue: routed calls are rare, and each poll is a held connection. */
const POLLERS = 2;

export interface ProviderWorkersInput {
  models: ModelRouter;
  /** The agents' worker's options, with its connection, queue, data converter and interceptors. */
  options: WorkerOptions;
  callModel: (...args: never[]) => Promise<unknown>;
}

/** The activity-only workers of the providers this worker can call (none when `LIVECONTEXT_PROVIDER_QUEUES=0`). */
export async function createProviderWorkers({ models, options, callModel }: ProviderWorkersInput): Promise<Worker[]> {
  if (process.env.LIVECONTEXT_PROVIDER_QUEUES === '0') return [];
  const ids = models
    .readiness()
    .filter((p) => p.ready && !EVERYWHERE.has(p.id))
    .map((p) => p.id);
  const workers: Worker[] = [];
  try {
    for (const id of ids) {
      workers.push(
        await activityOnly(
          defined({
            connection: options.connection,
            namespace: options.namespace,
            taskQueue: providerTaskQueue(options.taskQueue, id),
            activities: { callModel },
            dataConverter: options.dataConverter,
            identity: options.identity,
            workerDeploymentOptions: options.workerDeploymentOptions,
            interceptors: options.interceptors?.activity ? { activity: options.interceptors.activity } : undefined,
            maxConcurrentActivityTaskExecutions: options.maxConcurrentActivityTaskExecutions,
            activityTaskPollerBehavior: { type: 'simple-maximum', maximum: POLLERS },
            maxHeartbeatThrottleInterval: options.maxHeartbeatThrottleInterval,
            defaultHeartbeatThrottleInterval: options.defaultHeartbeatThrottleInterval,
          }),
        ),
      );
    }
  } catch (err) {
    await Promise.allSettled(workers.map(release));
    throw err;
  }
  return workers;
}

/**
 * Makes `worker.run()` run the provider workers too, and end them when it ends (a shutdown of the agents'
 * worker, or its failure), so callers keep one worker to run and shut down.
 */
export function runWithProviderWorkers(worker: Worker, providers: Worker[]): void {
  if (!providers.length) return;
  const run = worker.run.bind(worker);
  worker.run = async () => {
    const running = providers.map((p) => p.run());
    try {
      return await run();
    } finally {
      for (const p of providers) if (p.getState() === 'RUNNING') p.shutdown();
      await Promise.allSettled(running);
    }
  };
}

/** Ends a worker that was created but will not run (a created worker holds its connection until it has run). */
export async function release(worker: Worker): Promise<void> {
  await worker.runUntil(Promise.resolve());
}

/** `options` without its undefined properties: Temporal's native worker refuses an explicit undefined. */
function defined(options: WorkerOptions): WorkerOptions {
  return Object.fromEntries(Object.entries(options).filter(([, v]) => v !== undefined)) as unknown as WorkerOptions;
}

/**
 * Worker.create for a worker with activities only, without the warning Temporal's Worker logs at every
 * start when it has no workflows ("No workflows registered…"): here that is the intent, and every worker
 * start would say it once per provider. The Worker's logger is not an option, so it is wrapped in place.
 */
async function activityOnly(options: WorkerOptions): Promise<Worker> {
  const worker = await Worker.create(options);
  const held = worker as unknown as { logger?: Logger };
  const logger = held.logger;
  if (logger && typeof logger.warn === 'function') {
    held.logger = Object.assign(Object.create(logger) as Logger, {
      warn: (message: string, meta?: LogMetadata) => (message.startsWith('No workflows registered') ? undefined : logger.warn(message, meta)),
    });
  }
  return worker;
}
