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
import { ASK_USER_CHANGE } from '../agent/ask-user';
import { BATCH_LIMIT_CHANGE } from '../agent/agent';
import { BUDGETS_CHANGE } from '../agent/budgets';
import { FALLBACK_MODELS_CHANGE } from '../agent/model-step';
import { SUB_AGENTS_CHANGE } from '../agent/sub-agents';
import { taskListKind } from '../agent/widgets/task-list';

// The agent workflow's own changes (asked for in workflows/agent-workflow.ts and workflows/agent-run/).
/** Since this patch a sleep/wait_until gives way to continue-as-new, stop and reset, and is carried. */
export const TIMERS_CARRIED_PATCH = 'timers-carried-across-continue-as-new';
/** Since this patch waitForAnswer returns the answer's entry number, so each answer is in history once. */
export const ANSWER_BY_REFERENCE_PATCH = 'answer-by-reference';
/** Since this patch a retry (or new configuration) clears a blocking error at once, not when the loop next runs. */
export const RETRY_CLEARS_ERROR_PATCH = 'retry-clears-error-at-once';
/** Since this patch a state too large to pass inline is carried only by a worker that offloads it. */
export const STATE_SIZE_GUARD_PATCH = 'state-size-guard';
/** Since this patch a retry or new configuration arms a retry only when a model call failed or is under way. */
export const RETRY_ONLY_AT_STAKE_PATCH = 'retry-only-at-stake';
/** Since this patch a run that has taken UPDATE_BUDGET updates (agent-run/run-control.ts) continues as new. */
export const UPDATE_BUDGET_PATCH = 'continue-before-update-limit';
/** Since this patch a turn that is one model call writes no search attribute (see searchAttributePublisher). */
export const LAZY_WORKING_PATCH = 'lazy-working-state';
/**
 * Since this patch an answer of at most INLINE_ANSWER_CHARS characters (as JSON, agent/answer-delivery.ts) comes
 * back in the update's result; only longer ones by reference. A reference costs the client a query per
 * turn (a billable action, and a workflow activation on the worker) to save a few hundred bytes of history.
 */
export const INLINE_SMALL_ANSWER_PATCH = 'small-answers-inline';
/**
 * Since this change a run's first search-attribute write is left out when it would repeat what the run was
 * started listed as (a new agent is started listed `WaitingInput`): a history event and a visibility write
 * fewer per new agent (and per continue-as-new at rest). Taken up by RUN_CHANGES_V2.
 */
export const LISTED_AT_START_CHANGE = 'listed-at-start';

const RUN_CHANGES_V1 = 'run-changes-v1';
const CHANGES_V1: ReadonlySet<string | undefined> = new Set([
  TIMERS_CARRIED_PATCH,
  ANSWER_BY_REFERENCE_PATCH,
  RETRY_CLEARS_ERROR_PATCH,
  STATE_SIZE_GUARD_PATCH,
  RETRY_ONLY_AT_STAKE_PATCH,
  UPDATE_BUDGET_PATCH,
  LAZY_WORKING_PATCH,
  INLINE_SMALL_ANSWER_PATCH,
  // the agent core's (deps.since)
  SUB_AGENTS_CHANGE,
  FALLBACK_MODELS_CHANGE,
  BATCH_LIMIT_CHANGE,
  BUDGETS_CHANGE,
  ASK_USER_CHANGE,
  taskListKind.since,
]);

/**
 * CHANGES_V1 and the changes made after it. A run started by code that has them all asks once for this,
 * not for v1 and then each later change on its own (each first `patched` is two more history events).
 * Never add to it once released; until then, a change made alongside joins it.
 */
const RUN_CHANGES_V2 = 'run-changes-v2';
export const CHANGES_V2: ReadonlySet<string | undefined> = new Set([...CHANGES_V1, LISTED_AT_START_CHANGE]);

/** Call once, first thing in the run (its marker goes with the run's first task); returns `patched` for the run. */
export function runChanges(): (change: string) => boolean {
  // A run marked v2 has every change of v2; one marked v1 (or neither) asks as it always did.
  if (patched(RUN_CHANGES_V2)) return (change) => CHANGES_V2.has(change) || patched(change);
  const all = patched(RUN_CHANGES_V1);
  return (change) => (all && CHANGES_V1.has(change)) || patched(change);
}
