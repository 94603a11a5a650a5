/**
 * Where a turn's wait goes, read from history: each turn's events (between the client's send and its
 * answer, same machine, same clock) split into the client → first workflow task, each workflow task's
 * schedule-to-start (matching) and start-to-completion (the worker, plus its report), the activity's
 * schedule-to-completion, and the update's completion → the client's answer. Medians and 99th percentiles
 * over the turns.
 */
import type { Client } from '@temporalio/client';
import { temporal } from '@temporalio/proto';
import { percentile, round } from './support';

type Event = temporal.api.history.v1.IHistoryEvent;
const { EventType: T } = temporal.api.enums.v1;
const millis = (e: Event) => Number(e.eventTime?.seconds ?? 0) * 1000 + (e.eventTime?.nanos ?? 0) / 1e6;

/** One measured turn: when the client sent it (epoch ms) and how long it took to answer. */
export interface TurnMark {
  sentAt: number;
  ms: number;
}

export interface TurnProfile {
  turns: number;
  eventsPerTurn: number;
  workflowTasksPerTurn: number;
  activitiesPerTurn: number;
  /** Median ms of each part of a turn. */
  p50Ms: Record<string, number>;
  /** 99th percentile ms of each part (each part's own: the slowest turns are not the same for every part). */
  p99Ms: Record<string, number>;
  /** How many turns have each part (a third workflow task is in a few turns only). */
  turnsWith: Record<string, number>;
}

export async function turnProfile(client: Client, workflowId: string, marks: TurnMark[]): Promise<TurnProfile> {
  const events = (await client.workflow.getHandle(workflowId).fetchHistory()).events ?? [];
  const parts: Record<string, number[]> = {};
  const counts = { events: [] as number[], tasks: [] as number[], activities: [] as number[] };
  const add = (name: string, ms: number) => {
    if (Number.isFinite(ms)) (parts[name] ??= []).push(ms);
  };
  for (const { sentAt, ms } of marks) {
    // Event times are the server's, in ms; a little slack for the two clocks' rounding.
    const turn = events.filter((e) => millis(e) >= sentAt - 1 && millis(e) <= sentAt + ms + 1);
    const times = (type: number) => turn.filter((e) => e.eventType === type).map(millis);
    const scheduled = times(T.EVENT_TYPE_WORKFLOW_TASK_SCHEDULED);
    const started = times(T.EVENT_TYPE_WORKFLOW_TASK_STARTED);
    const completed = times(T.EVENT_TYPE_WORKFLOW_TASK_COMPLETED);
    counts.events.push(turn.length);
    counts.tasks.push(completed.length);
    counts.activities.push(times(T.EVENT_TYPE_ACTIVITY_TASK_SCHEDULED).length);
    add('client → first workflow task scheduled', scheduled[0] - sentAt);
    completed.forEach((done, i) => {
      add(`workflow task ${i + 1}: scheduled → started`, started[i] - scheduled[i]);
      add(`workflow task ${i + 1}: started → completed`, done - started[i]);
    });
    const activityScheduled = times(T.EVENT_TYPE_ACTIVITY_TASK_SCHEDULED);
    const activityCompleted = times(T.EVENT_TYPE_ACTIVITY_TASK_COMPLETED);
    if (activityScheduled.length === 1 && activityCompleted.length === 1) add('activity: scheduled → completed', activityCompleted[0] - activityScheduled[0]);
    const updateCompleted = times(T.EVENT_TYPE_WORKFLOW_EXECUTION_UPDATE_COMPLETED);
    add('update completed → client has the answer', sentAt + ms - updateCompleted[updateCompleted.length - 1]);
  }
  const median = (xs: number[]) => (xs.length ? percentile(xs, 50) : NaN);
  const byPart = (figure: (xs: number[]) => number) => Object.fromEntries(Object.entries(parts).map(([name, xs]) => [name, figure(xs)]));
  return {
    turns: marks.length,
    eventsPerTurn: median(counts.events),
    workflowTasksPerTurn: median(counts.tasks),
    activitiesPerTurn: median(counts.activities),
    p50Ms: byPart((xs) => round(median(xs))),
    p99Ms: byPart((xs) => round(percentile(xs, 99))),
    turnsWith: byPart((xs) => xs.length),
  };
}
