/**
 * livecontext's workflow-side metrics, through Temporal's workflow metric meter: replay-safe (a counter
 * adds nothing while the workflow replays, so a worker that takes an agent over after a crash or an
 * eviction does not count its past again) and exported with the worker's metrics (common/metrics.ts),
 * tagged with namespace, task queue and workflow type. No history events, no commands: recording a
 * metric changes nothing a replay compares, so no patch is needed. A no-op when metrics are off.
 *
 * - `livecontext_turns{model}`: turns done, counted when the agent comes to rest waiting for input
 *   after working (an answered turn, tools and approvals included, counts once).
 * - `livecontext_agent_blocked{reason, error}`: times agents came to rest blocked on something other
 *   than input: `reason` is `approval` (a tool call waits for a person's approval), `unknown_outcome`
 *   (only calls whose outcome is unknown wait, for a resolve) or `error` (the model call failed for
 *   good; `error` is its code, e.g. `ModelError.RateLimited`, `BUDGET_EXCEEDED`).
 * - `livecontext_continue_as_new{cause}`: runs handed on to a new run: `history` (the run's history
 *   grew past its budget, or Temporal suggested it) or `reset`.
 */
import { metricMeter } from '@temporalio/workflow';

/** What the metrics read of the agent. */
interface MetricSubject {
  readonly config: { readonly model: string };
  readonly lastError?: { readonly code: string };
  awaitingApproval(): readonly unknown[];
}

/** Why an agent resting on BlockedOnApproval waits: an approval, or only calls whose outcome is unknown. */
export function approvalRestReason(agent: Pick<MetricSubject, 'awaitingApproval'>): 'approval' | 'unknown_outcome' {
  return agent.awaitingApproval().length > 0 ? 'approval' : 'unknown_outcome';
}

export interface AgentMetrics {
  /** After a step that made progress. */
  progressed(): void;
  /** When the loop comes to rest on `outcome` (BlockedOnInput, BlockedOnApproval, BlockedOnError). */
  rested(outcome: string): void;
  /** Just before the run continues as new. */
  continuedAsNew(cause: 'history' | 'reset'): void;
}

/** The metrics of one run; make it inside the workflow function (the meter needs the workflow's context). */
export function agentMetrics(agent: MetricSubject): AgentMetrics {
  const turns = metricMeter.createCounter('livecontext_turns', '1', 'Turns agents finished (came to rest waiting for input after working), by model.');
  const blocked = metricMeter.createCounter(
    'livecontext_agent_blocked',
    '1',
    'Times agents came to rest blocked on approval or on an error, by reason (and error code).',
  );
  const continued = metricMeter.createCounter('livecontext_continue_as_new', '1', 'Agent runs continued as new, by cause (history, reset).');
  let worked = false; // a step made progress since the last rest
  let lastRest = '';
  return {
    progressed() {
      worked = true;
    },
    rested(outcome) {
      // The same rest again without progress in between (an approval decided while another still waits,
      // a retry that failed at once) is the same block, counted once.
      const again = !worked && outcome === lastRest;
      if (outcome === 'BlockedOnInput' && worked) turns.add(1, { model: agent.config.model });
      else if (outcome === 'BlockedOnApproval' && !again) blocked.add(1, { reason: approvalRestReason(agent) });
      else if (outcome === 'BlockedOnError' && !again) blocked.add(1, { reason: 'error', error: agent.lastError?.code ?? 'unknown' });
      worked = false;
      lastRest = outcome;
    },
    continuedAsNew(cause) {
      continued.add(1, { cause });
    },
  };
}
