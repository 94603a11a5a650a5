/**
 * The behaviour changes a run takes up, known from the build ID of the worker that ran its first task
 * (changes-mark.ts) when that worker is marked, and from markers otherwise (run-changes.ts).
 *
 * The first `patched(id)` of a run records a marker and, beside it, the SDK's `TemporalChangeVersion`
 * search attribute: a visibility write the server makes for every new agent and every continue-as-new.
 * Measured on the dev server (bench scale, 2,000 bare workflows): one `patched()` at start took the
 * server's CPU per workflow brought up from ~25 to ~32 ms. A run whose first task a marked worker ran
 * takes the changes below as on with no marker at all; replayed, it finds the same build ID in its
 * history and takes them again. A run whose first task any other worker ran (an older livecontext, a
 * worker with the user's own build ID) asks once, with the RUN_CHANGES_V4 marker (runs from before it
 * ask as they always did).
 *
 * Left out, so they still leave their marker when used: the changes that mark a run as one older code must
 * not replay (a rewind, an MCP elicitation wait).
 */
import { patched, workflowInfo } from '@temporalio/workflow';
import { ALL_QUESTIONS_CHANGE } from '../agent/ask-user';
import { IDEMPOTENCY_PRINTS_CHANGE, ONE_ANSWER_CHANGE } from '../agent/agent';
import { ARCHIVE_CHANGE, SMALLER_WORKING_SET_CHANGE } from '../agent/archive';
import { IMPOSSIBLE_IMAGES_CHANGE } from '../agent/attachments';
import { UNKNOWN_OUTCOME_CHANGE } from '../agent/effect-ledger';
import { COMPACTION_CHANGE, MODEL_FAILURE_ENTRY_CHANGE } from '../agent/model-step';
import { REFUSED_ATTACHMENTS_CHANGE } from '../agent/refused-attachments';
import { EXPORT_SETTLES_SUB_AGENTS_CHANGE, SUB_AGENT_FAILURES_CHANGE } from '../agent/sub-agents';
import { NOTEBOOK_CAP_CHANGE } from '../agent/widgets/memory-notebook';
import { FAILOVER_HEARTBEATS_CHANGE, LOCAL_MODEL_CALL_CHANGE } from './activity-options';
import { A2A_PUSH_CHANGE } from './agent-run/a2a-push-notifier';
import { LISTED_RESOLUTION_CHANGE, TAKEN_INPUT_LISTING_CHANGE } from './agent-run/search-attributes';
import { ARCHIVE_BY_REFERENCE_CHANGE } from './agent-run/step-deps';
import { changesOfBuildId } from './changes-mark';
import { MODEL_ROUTING_CHANGE } from './model-routing';
import { CHANGES_V2, runChanges } from './run-changes';

/** CHANGES_V2 and every change made after it up to change level 3. Never add to it: a later change gets a new level. */
export const CHANGES_V3: ReadonlySet<string | undefined> = new Set([
  ...CHANGES_V2,
  ARCHIVE_BY_REFERENCE_CHANGE,
  LISTED_RESOLUTION_CHANGE,
  FAILOVER_HEARTBEATS_CHANGE,
  LOCAL_MODEL_CALL_CHANGE,
  MODEL_ROUTING_CHANGE,
  A2A_PUSH_CHANGE,
  IMPOSSIBLE_IMAGES_CHANGE,
  REFUSED_ATTACHMENTS_CHANGE,
  SUB_AGENT_FAILURES_CHANGE,
  EXPORT_SETTLES_SUB_AGENTS_CHANGE,
  COMPACTION_CHANGE,
  MODEL_FAILURE_ENTRY_CHANGE,
  IDEMPOTENCY_PRINTS_CHANGE,
  ONE_ANSWER_CHANGE,
  ARCHIVE_CHANGE,
  SMALLER_WORKING_SET_CHANGE,
  ALL_QUESTIONS_CHANGE,
  UNKNOWN_OUTCOME_CHANGE,
  NOTEBOOK_CAP_CHANGE,
]);

/** CHANGES_V3 and every change made after it up to change level 4. Never add to it: a later change gets a new level. */
export const CHANGES_V4: ReadonlySet<string | undefined> = new Set([...CHANGES_V3, TAKEN_INPUT_LISTING_CHANGE]);

/** The marker of a run whose first task a worker without the mark ran with this code: it has every change of CHANGES_V4. */
const RUN_CHANGES_V4 = 'run-changes-v4';

/** Call once, first thing in the run (at its first activation); returns `patched` for the run. */
export function runChangesByBuild(): (change: string) => boolean {
  // The first task's build ID: this worker's when it runs that task, the recorded one when it replays it.
  const level = changesOfBuildId(workflowInfo().currentBuildId);
  if (level >= 4) return taking(CHANGES_V4);
  if (level === 3) return taking(CHANGES_V3);
  // No mark (a build ID of the user's own, a worker deployment): one marker for all of them; runs of older code have none.
  if (patched(RUN_CHANGES_V4)) return taking(CHANGES_V4);
  return runChanges();
}

/** A run's `patched`: the changes of `level` without asking, any later one asked. */
function taking(level: ReadonlySet<string | undefined>): (change: string) => boolean {
  return (change) => level.has(change) || patched(change);
}
