/**
 * Whether a worker polls a task queue, from Temporal's task-queue description (no worker is asked).
 *
 * Temporal lists a poller for five minutes after its last poll, and a live worker that has nothing to do
 * polls again only when its long poll expires (about every minute): a poller counts as present when it
 * polled within POLLED_WITHIN_MS. So a queue no worker polled for that long is known to have none at
 * once; a worker that stopped less than that ago still counts (queries to it time out instead).
 */
import type { Client } from '@temporalio/client';

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

/** One worker (by its identity, e.g. `pid@host`) seen polling a task queue. */
export interface Poller {
  identity: string;
  /** Milliseconds since it last polled (either kind of task). */
  lastPolledMsAgo: number;
  /** Which kinds of task it polled for within POLLED_WITHIN_MS. */
  workflows: boolean;
  activities: boolean;
}

/** The part of a Client or a NativeConnection this needs. */
export interface TaskQueueDescriber {
  workflowService: Pick<Client['workflowService'], 'describeTaskQueue'>;
}

/** The workers that polled `taskQueue` within POLLED_WITHIN_MS, one entry per identity, most recent first. */
export async function listPollers(service: TaskQueueDescriber, namespace: string, taskQueue: string): Promise<Poller[]> {
  const now = Date.now();
  const byIdentity = new Map<string, Poller>();
  for (const taskQueueType of [WORKFLOW_TASKS, ACTIVITY_TASKS]) {
    const { pollers } = await service.workflowService.describeTaskQueue({ namespace, taskQueue: { name: taskQueue, kind: NORMAL_KIND }, taskQueueType });
    for (const p of pollers) {
      const age = Math.max(0, now - timestampMs(p.lastAccessTime));
      if (age > POLLED_WITHIN_MS) continue;
      const identity = p.identity || '(no identity)';
      const seen = byIdentity.get(identity) ?? { identity, lastPolledMsAgo: age, workflows: false, activities: false };
      seen.lastPolledMsAgo = Math.min(seen.lastPolledMsAgo, age);
      if (taskQueueType === WORKFLOW_TASKS) seen.workflows = true;
      else seen.activities = true;
      byIdentity.set(identity, seen);
    }
  }
  return [...byIdentity.values()].sort((a, b) => a.lastPolledMsAgo - b.lastPolledMsAgo);
}

/**
 * Whether a worker polled `taskQueue` for workflow tasks at or after `sinceMs` (server time, e.g. a run's
 * start time from describe): a busy worker whose every slot is taken re-polls as each task ends, and a
 * killed worker's polls stopped with it, so a poll since a moment is a sign of life a stale list is not.
 */
export async function polledSince(service: TaskQueueDescriber, namespace: string, taskQueue: string, sinceMs: number): Promise<boolean> {
  const { pollers } = await service.workflowService.describeTaskQueue({
    namespace,
    taskQueue: { name: taskQueue, kind: NORMAL_KIND },
    taskQueueType: WORKFLOW_TASKS,
  });
  return pollers.some((p) => timestampMs(p.lastAccessTime) >= sinceMs);
}

/** Milliseconds since the epoch of a protobuf Timestamp (its seconds may be a Long); 0 when absent. */
export function timestampMs(ts: { seconds?: number | { toNumber(): number } | null; nanos?: number | null } | null | undefined): number {
  if (!ts) return 0;
  const seconds = typeof ts.seconds === 'number' ? ts.seconds : (ts.seconds?.toNumber() ?? 0);
  return seconds * 1000 + Math.floor((ts.nanos ?? 0) / 1_000_000);
}
