/**
 * Whether a live worker takes tasks from a task queue now, known in about a second — unlike the poller
 * list (common/task-queue-pollers.ts), which shows a SIGKILLed worker for as long as an idle live one
 * (Temporal stamps a poller when its long poll starts and ends, and an idle worker's poll lasts a minute).
 *
 * The probe hands the queue a task and asks the server whether a poller took it: the short
 * workerInfoWorkflow (one id per queue, so probes at the same moment share a run) is started, and its
 * first workflow task is marked started the moment a worker's open poll receives it — server-side, so a
 * worker that is alive but slow (a long workflow task, a stalled process) counts as alive. A killed
 * worker's polls ended with its connection: the task waits, and the probe says no worker took it.
 * A worker with every workflow task slot taken does not poll; it still polls again as each task ends, so
 * when the task was not taken in time, a poll the server saw since the probe started counts as alive too.
 * A busy worker may also not take a task from the shared queue for a second or more (its polls go to the
 * work it has); workerServes, below, looks at the agent's own history for that.
 */
import type { Client } from '@temporalio/client';
import { polledSince, timestampMs } from '../common/task-queue-pollers';
import { startWorkerInfo } from './worker-info';

/** How long a probe waits for a worker to take its task. */
const PROBE_WAIT_MS = 800;
/** Probes asked within this long of each other share a run. */
const SHARED_RUN_MS = 1_000;
/** Temporal's PendingWorkflowTaskState.STARTED (its protos are not our dependency). */
const WORKFLOW_TASK_STARTED = 2;
/**
 * A worker that worked on the agent this shortly before a probe found none may be stalled, or being
 * replaced (a rolling restart), rather than killed: it is given LONGER_LOOK_MS more before it is called gone.
 */
const RECENT_WORK_MS = 5_000;
const LONGER_LOOK_MS = 3_000;

/**
 * True once a worker took the probe's workflow task (or the probe run ended, answered); false if none
 * did within `waitMs`. Costs one short workflow run per probe (a few billable actions on Temporal Cloud),
 * so callers probe only when an agent did not answer at once.
 */
export async function workerTakesTasks(client: Client, taskQueue: string, waitMs = PROBE_WAIT_MS, signal?: AbortSignal): Promise<boolean> {
  return (await probeQueue(client, taskQueue, waitMs, signal)).taken;
}

/** workerTakesTasks, with the server's start time of the probe's run (0 when unknown) to compare history with. */
async function probeQueue(client: Client, taskQueue: string, waitMs: number, signal?: AbortSignal): Promise<{ taken: boolean; startedMs: number }> {
  const asked = Date.now();
  const deadline = asked + waitMs;
  let handle = await startWorkerInfo(client, taskQueue);
  let replaced = false;
  for (;;) {
    if (signal?.aborted) return { taken: true, startedMs: 0 }; // the caller has its answer: whatever the probe would say no longer matters
    const { status, raw } = await handle.describe();
    // A run an earlier probe started (not one started a moment ago, which this probe shares) may have been
    // taken by a worker killed since, and would prove it alive: that run is replaced by a new one, once.
    if (status.name === 'RUNNING' && !replaced && timestampMs(raw.workflowExecutionInfo?.startTime) < asked - SHARED_RUN_MS) {
      handle = await startWorkerInfo(client, taskQueue, true);
      replaced = true;
      continue;
    }
    const startedMs = timestampMs(raw.workflowExecutionInfo?.startTime);
    if (status.name === 'COMPLETED' || status.name === 'FAILED') return { taken: true, startedMs }; // only a worker ends it so
    if (status.name === 'RUNNING' && raw.pendingWorkflowTask?.state === WORKFLOW_TASK_STARTED) return { taken: true, startedMs };
    // Past the start and its first task's scheduling, a task was taken and completed.
    if (status.name === 'RUNNING' && Number(raw.workflowExecutionInfo?.historyLength?.toString() ?? 0) > 2) return { taken: true, startedMs };
    if (Date.now() >= deadline) return { taken: startedMs > 0 && (await polledSince(client, client.options.namespace, taskQueue, startedMs)), startedMs };
    await new Promise((r) => setTimeout(r, 100));
  }
}

/** Where a workflow's tasks stood at a moment: its run, whether a worker held a task, how long its history was. */
export interface WorkflowTaskMark {
  runId: string;
  held: boolean;
  historyLength: number;
}

/** Temporal's EventType and ContinueAsNewInitiator values (its protos are not our dependency). */
const WORKFLOW_EXECUTION_STARTED = 1;
const WORKFLOW_TASK_COMPLETED = 7;
const CONTINUED_BY_WORKFLOW = 1;
/** At most this many of the newest events are read to find a completed workflow task since a mark. */
const NEWEST_EVENTS_READ = 100;
/** The newest events read for a worker's last work on a run (a turn writes about 11). */
const LAST_WORK_EVENTS_READ = 20;

/**
 * Whether a worker holds a workflow task of `workflowId` now (one it took and has not completed), and the
 * length of its history, for workflowTaskWorked to compare with later. A live worker busy with a long
 * activation of that workflow (a replay of a long history, a burst of updates) takes no other task
 * meanwhile, so the probe above may find none taken; a query to the workflow waits for that task. A killed
 * worker's task stays held too, but only until its timeout (10 s by default).
 */
export async function markWorkflowTasks(client: Client, workflowId: string): Promise<WorkflowTaskMark> {
  const { raw, runId } = await client.workflow.getHandle(workflowId).describe();
  return {
    runId,
    held: raw.pendingWorkflowTask?.state === WORKFLOW_TASK_STARTED,
    historyLength: Number(raw.workflowExecutionInfo?.historyLength?.toString() ?? 0),
  };
}

/**
 * Whether a worker holds a workflow task of `workflowId` now or, given an earlier mark, completed one since.
 * A worker busy with a burst of that workflow's updates moves from one short task to the next, between
 * which it holds none, and under load may not poll the queue for a second: a task it completed since the
 * mark is the sign of life that one look at the pending task can miss. Only a worker completes a task
 * (signals and timers add events without one), so a killed worker's agent shows none. A run other than
 * the marked one means the agent moved to a new run since (a worker's continue-as-new).
 */
export async function workflowTaskWorked(client: Client, workflowId: string, since?: WorkflowTaskMark): Promise<boolean> {
  const now = await markWorkflowTasks(client, workflowId);
  if (now.held || (since && now.runId !== since.runId)) return true;
  const added = since ? now.historyLength - since.historyLength : 0;
  if (!since || added <= 0) return false;
  const events = await newestEvents(client, workflowId, now.runId, Math.min(added, NEWEST_EVENTS_READ));
  return events.some((e) => e.eventType === WORKFLOW_TASK_COMPLETED && Number(e.eventId?.toString() ?? 0) > since.historyLength);
}

/**
 * When a worker last worked on `workflowId`'s current run, in server time (0 if not among its newest
 * events): its newest completed workflow task, or the run's start when a worker continued it as new.
 */
export async function lastWorkedMs(client: Client, workflowId: string, runId?: string): Promise<number> {
  const events = await newestEvents(client, workflowId, runId, LAST_WORK_EVENTS_READ);
  const worked = events.find(
    (e) =>
      e.eventType === WORKFLOW_TASK_COMPLETED ||
      (e.eventType === WORKFLOW_EXECUTION_STARTED && e.workflowExecutionStartedEventAttributes?.initiator === CONTINUED_BY_WORKFLOW),
  );
  return timestampMs(worked?.eventTime);
}

/** Up to `count` of a run's newest events, newest first. */
async function newestEvents(client: Client, workflowId: string, runId: string | undefined, count: number) {
  const { history } = await client.workflowService.getWorkflowExecutionHistoryReverse({
    namespace: client.options.namespace,
    execution: { workflowId, runId },
    maximumPageSize: count,
  });
  return history?.events ?? [];
}

/**
 * Whether a live worker serves `workflowId` on `taskQueue`: it takes the probe's task now
 * (workerTakesTasks) or, taking none, holds the workflow's own task or completed one while the probe ran —
 * busy with that workflow, it takes no other task (alive, a query waits for it; killed, its task times out
 * within seconds and a later look finds no worker). When none of that shows but a worker worked on the
 * workflow within RECENT_WORK_MS before the probe, the silence is ambiguous — a worker killed a moment ago,
 * or one stalled for a second or two (a loaded machine, a long pause), or being replaced — and the probe
 * looks LONGER_LOOK_MS more before saying no. Undefined when the probe itself could not run.
 */
export async function workerServes(client: Client, taskQueue: string, workflowId: string, signal?: AbortSignal): Promise<boolean | undefined> {
  const mark = markWorkflowTasks(client, workflowId).catch(() => undefined);
  const probe = await probeQueue(client, taskQueue, PROBE_WAIT_MS, signal).catch(() => undefined);
  if (probe?.taken !== false) return probe?.taken;
  const since = await mark;
  if (since?.held || (await workflowTaskWorked(client, workflowId, since).catch(() => false))) return true;
  const worked = await lastWorkedMs(client, workflowId, since?.runId).catch(() => 0);
  if (!(probe.startedMs > 0 && worked > probe.startedMs - RECENT_WORK_MS)) return false;
  const later = await workerTakesTasks(client, taskQueue, LONGER_LOOK_MS, signal).catch(() => undefined);
  if (later !== false) return later;
  return workflowTaskWorked(client, workflowId, since).catch(() => false);
}
