/**
 * The mark in a worker's build ID that says which of the agent workflow's changes its code has:
 * `livecontext-changes-v3@…` (worker/build-id.ts). Temporal records in each workflow task's completion
 * the build ID of the worker that ran it, and gives it to the workflow (`workflowInfo().currentBuildId`)
 * both when that worker runs the task and whenever any worker replays it: so what a run's first task was
 * run with is a fact of its history, like a marker, without being an event (see run-changes-by-build.ts).
 */

/** The change level of this code: every change of CHANGES_V3 (run-changes-by-build.ts). */
export const CHANGES_LEVEL = 3;

const MARK = /(?:^|[^a-z])livecontext-changes-v(\d+)(?![0-9])/;

/** The mark for a build ID. */
export function changesMark(level = CHANGES_LEVEL): string {
  return `livecontext-changes-v${level}`;
}

/** The change level a build ID says its worker has; 0 when it carries no mark (the SDK's default build ID, a user's own). */
export function changesOfBuildId(buildId: string | undefined): number {
  const m = buildId ? MARK.exec(buildId) : null;
  return m ? Number(m[1]) : 0;
}
