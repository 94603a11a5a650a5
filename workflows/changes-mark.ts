/**
 * The mark in a worker's build ID that says which of the agent workflow's changes its workflow code has:
 * `livecontext-changes-v4@…` (worker/build-id.ts). Temporal records in each workflow task's completion
 * the build ID of the worker that ran it, and gives it to the workflow (`workflowInfo().currentBuildId`)
 * both when that worker runs the task and whenever any worker replays it: so what a run's first task was
 * run with is a fact of its history, like a marker, without being an event (see run-changes-by-build.ts).
 *
 * The worker reads the level from the text of the workflow bundle it runs (CHANGES_LEVEL_TAG, written out
 * whole), not from its own code: a bundle built from older code has no tag and gets no mark.
 *
 * One exception, from the SDK: a run whose first task wrote nothing, and whose next task (an update) a worker
 * picks up without the run in its cache, has its first activation run live on that worker, merged with the
 * update (a replay splits them again): that activation reads the build ID of *that* worker. So a level's
 * changes must, for such a run, do what the level before them does when replayed (level 4 does).
 */

/** This code's change level, as the worker finds it in the bundle's text: the only place it is written. */
export const CHANGES_LEVEL_TAG = 'livecontext-workflow-changes-level:4';

/** The change level of this code: every change of CHANGES_V4 (run-changes-by-build.ts). */
export const CHANGES_LEVEL = Number(CHANGES_LEVEL_TAG.split(':')[1]);

/** The change level a workflow bundle's text says its code has (its CHANGES_LEVEL_TAG); 0 when it has none. */
export function changesLevelOfBundle(code: string): number {
  const m = /livecontext-workflow-changes-level:(\d+)['"`]/.exec(code);
  return m ? Number(m[1]) : 0;
}

/** The mark for a build ID. */
export function changesMark(level = CHANGES_LEVEL): string {
  return `livecontext-changes-v${level}`;
}

/** The change level a build ID says its worker has; 0 when it carries no mark (the SDK's default build ID, a user's own). */
export function changesOfBuildId(buildId: string | undefined): number {
  const m = buildId ? /(?:^|[^a-z])livecontext-changes-v(\d+)(?![0-9])/.exec(buildId) : null;
  return m ? Number(m[1]) : 0;
}
