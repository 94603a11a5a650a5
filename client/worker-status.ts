/**
 * The client's answer when no worker polls an agent's task queue (common/task-queue-pollers.ts says how
 * that is known): a typed error instead of a hang.
 */
import type { Client } from '@temporalio/client';
import { LivecontextError } from '../agent/errors';
import { type WorkerStatus, describeWorkers } from '../common/task-queue-pollers';

/** No worker polls the task queue an agent runs on: what it would need cannot happen until one does. */
export class NoWorkerError extends LivecontextError {
  constructor(
    readonly status: WorkerStatus,
    /** What was tried and what was seen, when it was a call that got no answer (a query). */
    what?: string,
  ) {
    const seen = status.lastPolledMsAgo === null ? '' : ` (a worker last polled it ${Math.round(status.lastPolledMsAgo / 1000)} s ago)`;
    const lead = what ? `${what}. ` : '';
    super(
      'NO_WORKER',
      `${lead}No worker is polling the task queue ${status.taskQueue} in namespace ${status.namespace}${seen}: ` +
        'start one with `livecontext worker` (or `npm start`).',
    );
  }
}

/**
 * Resolves once a worker polls `taskQueue`; throws NoWorkerError if none does within `graceMs`: a worker
 * starting at this moment gets that long to make its first polls (about a second, more on a busy machine).
 */
export async function expectWorker(client: Client, taskQueue: string, graceMs = 5_000): Promise<WorkerStatus> {
  const deadline = Date.now() + graceMs;
  for (;;) {
    const status = await describeWorkers(client, taskQueue);
    if (status.polling) return status;
    if (Date.now() >= deadline) throw new NoWorkerError(status);
    await new Promise((r) => setTimeout(r, 250));
  }
}
