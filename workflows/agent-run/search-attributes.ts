/**
 * Keeps the agent's search attributes (run state, model, provider) current at its rest points — only
 * when it was started with them, so agents on namespaces without them (and old histories) never upsert.
 * Each write is a history event, and most turns are one model call: since LAZY_WORKING_PATCH an agent
 * woken by input is listed `Working` only once its turn goes past a step (tools, another model call), so
 * a plain turn writes nothing and stays listed `WaitingInput`. Since LISTED_RESOLUTION_CHANGE an agent held
 * only by calls whose outcome is unknown is listed `WaitingResolution` (it rests as for an approval, but
 * `resolve` moves it on, not `approve`). Since LISTED_AT_START_CHANGE a write that would only repeat what
 * the run started listed with (a new agent started `WaitingInput`, a run continued as new at rest) is
 * left out. Since TAKEN_INPUT_LISTING_CHANGE the turn's first step (the input taken) counts as the wake,
 * not the loop's rest before it. The `state` query is always exact.
 */
import { upsertSearchAttributes, workflowInfo } from '@temporalio/workflow';
import { type Agent, AgentRunState, restLabel } from '../../agent/index';
import { MODEL_ATTRIBUTE, PROVIDER_ATTRIBUTE, RUN_STATE_ATTRIBUTE } from '../messages';
import { LAZY_WORKING_PATCH, LISTED_AT_START_CHANGE } from '../run-changes';

/** The change that lists an agent waiting only on unknown outcomes as `WaitingResolution` (before: `WaitingApproval`). */
export const LISTED_RESOLUTION_CHANGE = 'listed-waiting-resolution';

/**
 * The change that lists an agent from the input it takes, not from the loop's rest: an input can reach the
 * run in one activation with the jobs of the task before it, which the agent then takes without resting.
 * The SDK does so when a worker without the run in its cache picks up an update that follows a task that
 * wrote nothing (it runs the two tasks as one), and splits them again when the run is replayed: so the
 * listing must come out the same either way (the turn's first step is the wake; until its first write the
 * run is taken to be listed as it started), or the replay of the run fails.
 */
export const TAKEN_INPUT_LISTING_CHANGE = 'listing-from-taken-input';

export function searchAttributePublisher(agent: Agent, changed: (change: string) => boolean) {
  const listed = workflowInfo().typedSearchAttributes;
  const enabled = listed.get(MODEL_ATTRIBUTE) !== undefined;
  /** What the run was started listed as (a new agent: by its client; a continued run: as its previous run left it). */
  const atStart = [listed.get(RUN_STATE_ATTRIBUTE), listed.get(MODEL_ATTRIBUTE), listed.get(PROVIDER_ATTRIBUTE)].join('|');
  // Asked at the run's first activation, by agents that are listed only (a marker, if any, goes with the first task).
  const byTakenInput = enabled && changed(TAKEN_INPUT_LISTING_CHANGE);
  let runState = (byTakenInput && listed.get(RUN_STATE_ATTRIBUTE)) || 'Working';
  let last = '';
  let lazy = false; // woken by input, not yet listed Working
  return {
    /** After a rest on `outcome` ends. */
    woke(outcome: string) {
      lazy = outcome === 'BlockedOnInput' && changed(LAZY_WORKING_PATCH);
      if (!lazy) this.publish('Working');
    },
    /** After a step that made progress: listed Working once the turn is past its first model call. */
    progressed() {
      // The step took the turn's input: woken by it, whether the loop rested before it or the input came with earlier jobs.
      if (byTakenInput && agent.runState === AgentRunState.PendingInput) lazy = changed(LAZY_WORKING_PATCH);
      if (lazy && agent.runState !== AgentRunState.WaitingInput && agent.runState !== AgentRunState.PendingInput) {
        lazy = false;
        this.publish('Working');
      }
    },
    publish(state?: string) {
      if (!enabled) return;
      if (state) runState = restLabel(state);
      // Asked only when an agent rests on unknown outcomes alone, so other histories take no marker.
      if (runState === 'WaitingApproval' && !agent.awaitingApproval().length && agent.unknownOutcomes().length && changed(LISTED_RESOLUTION_CHANGE)) {
        runState = 'WaitingResolution';
      }
      const model = agent.config.model;
      const values = [runState, model, model.split(':')[0]];
      if (values.join('|') === last) return;
      // Asked only when the first write would repeat the start's listing, so other histories take no marker.
      const repeatsStart = !last && values.join('|') === atStart && changed(LISTED_AT_START_CHANGE);
      last = values.join('|');
      if (repeatsStart) return;
      upsertSearchAttributes([
        { key: RUN_STATE_ATTRIBUTE, value: values[0] },
        { key: MODEL_ATTRIBUTE, value: values[1] },
        { key: PROVIDER_ATTRIBUTE, value: values[2] },
      ]);
    },
  };
}
