/**
 * Which behaviour changes a run takes up. The first `patched(id)` of each change in a run costs two
 * history events (a marker, and Temporal's `TemporalChangeVersion` search attribute) — six or more in
 * an agent's first turns, and again after every continue-as-new. A run started by code that has every
 * change in CHANGES_V1 asks once, at its start, for RUN_CHANGES_V1 and takes them all as on. A run
 * started before (its history has no such marker) asks per change, as it always did.
 *
 * Never add to CHANGES_V1: runs marked with it were made without any later change. A later change is
 * asked for on its own (or with a new run-wide patch whose list holds it and all of these).
 */
import { patched } from '@temporalio/workflow';

const RUN_CHANGES_V1 = 'run-changes-v1';
const CHANGES_V1: ReadonlySet<string> = new Set([
  // workflows/agent-workflow.ts
  'timers-carried-across-continue-as-new',
  'answer-by-reference',
  'retry-clears-error-at-once',
  'state-size-guard',
  'retry-only-at-stake',
  'continue-before-update-limit',
  'lazy-working-state',
  'small-answers-inline',
  // the agent core (deps.since)
  'sub-agents',
  'fallback-models',
  'tool-batch-limit',
  'budgets',
  'ask-user-tool',
  'task-list-widget',
]);

/** Call once, first thing in the run (its marker goes with the run's first task); returns `patched` for the run. */
export function runChanges(): (change: string) => boolean {
  const all = patched(RUN_CHANGES_V1);
  return (change) => (all && CHANGES_V1.has(change)) || patched(change);
}
