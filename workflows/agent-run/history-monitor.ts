/**
 * When a run has grown enough to move to a fresh one (continue-as-new): what it added to history passed
 * the agent's budget (default 8 MiB), it took UPDATE_BUDGET updates, or Temporal suggests a new run and
 * this one has done some work. Measured from the run's start, so a large carried state never makes a
 * fresh run continue again at once.
 */
import { workflowInfo } from '@temporalio/workflow';
import type { Agent } from '../../agent/index';

export const DEFAULT_HISTORY_BUDGET_BYTES = 8 * 1024 * 1024;

export function historyMonitor(agent: Agent, overUpdateBudget: () => boolean) {
  const start = workflowInfo();
  let steps = 0;
  const overBudget = () =>
    workflowInfo().historySize - start.historySize > (agent.config.historyBudgetBytes ?? DEFAULT_HISTORY_BUDGET_BYTES) || overUpdateBudget();
  return {
    /** Checked after each step. */
    tooLong() {
      steps++;
      return overBudget() || (workflowInfo().continueAsNewSuggested && steps >= 10);
    },
    /**
     * Checked while a timer runs, on every activation: what grows history then is input, so "some work"
     * is counted in events. Temporal reports the size as of the workflow task, so input arriving in the
     * same task counts from the next one.
     */
    tooLongWhileWaiting() {
      const info = workflowInfo();
      return overBudget() || (info.continueAsNewSuggested && info.historyLength - start.historyLength >= 500);
    },
  };
}
