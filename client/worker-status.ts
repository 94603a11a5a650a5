/**
 * Whether a worker polls a task queue, from Temporal's task-queue description (no worker is asked).
 *
 * Temporal lists a poller for five minutes after its last poll, and a live worker that has nothing to do
 * polls again only when its long poll expires (about every minute): a poller counts as present when it
 * polled within POLLED_WITHIN_MS. So a queue no worker polled for that long is known to have none at
 * once; a worker that stopped less than that ago still counts (queries to it time out instead).
 */
import type { Client } from '@temporalio/client';
import { LivecontextError } from '../agent/errors';

export const POLLED_WITHIN_MS = 75_000;

/** Temporal's TaskQueueType and TaskQueueKind values (its protos are not our dependency). */
const WORKFLOW_TASKS = 1;
const ACTIVITY_TASKS = 2;
const NORMAL_KIND = 1;

export interface WorkerStatus {
  namespace: string;
  taskQueue: string;
  /** Workers that polled for workflow tasks (the agent's steps, queries, updates) within POLLED_WITHIN_MS. */
  workflowPollers: number;
  /** Workers that polled for activity tasks (model calls, tools) within POLLED_WITHIN_MS. */
  activityPollers: number;
  /** Both kinds are polled: an agent on this queue can run. */
  polling: boolean;
  /** Milliseconds since any worker last polled this queue, or null if none did in the last five minutes. */
  lastPolledMsAgo: number | null;
}

export async function describeWorkers(client: Client, taskQueue: string): Promise<WorkerStatus> {
  const namespace = client.options.namespace;
  const now = Date.now();
  const ages = await Promise.all(
    [WORKFLOW_TASKS, ACTIVITY_TASKS].map(async (taskQueueType) => {
      const { pollers } = await client.workflowService.describeTaskQueue({ namespace, taskQueue: { name: taskQueue, kind: NORMAL_KIND }, taskQueueType });
      return pollers.map((p) => Math.max(0, now - timestampMs(p.lastAccessTime)));
    }),
  );
  const recent = (a: number[]) => a.filter((age) => age <= POLLED_WITHIN_MS).length;
  const all = ages.flat();
  const workflowPollers = recent(ages[0]);
  const activityPollers = recent(ages[1]);
  return {
    namespace,
    taskQueue,
    workflowPollers,
    activityPollers,
    polling: workflowPollers > 0 && activityPollers > 0,
    lastPolledMsAgo: all.length ? Math.min(...all) : null,
  };
}

/** No worker polls the task queue an agent runs on: what it would need cannot happen until one does. */
export class NoWorkerError extends LivecontextError {
  constructor(
    readonly status: WorkerStatus,
    /** What was tried, when it was a call that got no answer (a query that timed out). */
    what?: string,
  ) {
    const seen = status.lastPolledMsAgo === null ? '' : ` (a worker last polled it ${Math.round(status.lastPolledMsAgo / 1000)} s ago)`;
    const lead = what ? `${what}: no worker answered. ` : '';
    super(
      'NO_WORKER',
      `${lead}No worker is polling the task queue ${status.taskQueue} in namespace ${status.namespace}${seen}: ` +
        'start one with `livecontext worker` (or `npm start`).',
    );
  }
}

/** Milliseconds since the epoch of a protobuf Timestamp (its seconds may be a Long); 0 when absent. */
function timestampMs(ts: { seconds?: number | { toNumber(): number } | null; nanos?: number | null } | null | undefined): number {
  if (!ts) return 0;
  const seconds = typeof ts.seconds === 'number' ? ts.seconds : (ts.seconds?.toNumber() ?? 0);
  return seconds * 1000 + Math.floor((ts.nanos ?? 0) / 1_000_000);
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
