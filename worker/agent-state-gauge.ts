/**
 * `livecontext_agents{state}`: how many agents of this worker's task queue are running in each rest
 * state right now — WaitingInput, WaitingApproval, WaitingResolution, BlockedOnError, Working — counted by Temporal's
 * visibility store from the `LivecontextRunState` search attribute the agents keep (workflows/messages.ts).
 * A level an operator can graph and alert on ("agents blocked on approval", "agents stuck on errors"),
 * exact across worker restarts, evictions, continue-as-new and terminated agents, which counters kept
 * in workflows cannot be. Every worker of a task queue reports the same numbers: aggregate with max().
 *
 * Five count queries per interval (LIVECONTEXT_METRICS_AGENT_STATES_SECONDS, default 60; 0 turns it
 * off), only while the worker runs and only when the process exports metrics. Visibility is eventually
 * consistent: a change shows within seconds. Namespaces without the search attribute get a warning, once.
 */
import type { MetricGauge } from '@temporalio/common';
import { Runtime, type Worker } from '@temporalio/worker';

export const AGENT_STATES = ['WaitingInput', 'WaitingApproval', 'WaitingResolution', 'BlockedOnError', 'Working'] as const;
const DEFAULT_INTERVAL_SECONDS = 60;

/** Reports the gauge while `worker` runs, when metrics are on; returns whether it does. */
export function watchAgentStates(worker: Worker, env: NodeJS.ProcessEnv = process.env): boolean {
  const seconds = Number(env.LIVECONTEXT_METRICS_AGENT_STATES_SECONDS ?? DEFAULT_INTERVAL_SECONDS);
  if (!(seconds > 0) || !Runtime.defaultOptions.telemetryOptions?.metrics) return false;
  const { namespace, taskQueue } = worker.options;
  const runtime = Runtime.instance();
  const gauge: MetricGauge = runtime.metricMeter.createGauge(
    'livecontext_agents',
    'int',
    '1',
    'Running agents by rest state (LivecontextRunState), counted by Temporal visibility.',
  );
  let stopped = false;
  let busy = false;
  const count = async () => {
    if (busy || stopped || worker.getState() !== 'RUNNING') return;
    busy = true;
    try {
      for (const state of AGENT_STATES) {
        const query = `WorkflowType = "agentWorkflow" AND ExecutionStatus = "Running" AND TaskQueue = "${taskQueue}" AND LivecontextRunState = "${state}"`;
        const { count: n } = await worker.client!.workflow.count(query);
        gauge.set(n, { namespace, taskQueue, state });
      }
    } catch (err) {
      const message = (err as Error).message ?? String(err);
      if (/LivecontextRunState|search attribute|invalid argument/i.test(message)) {
        stopped = true; // a namespace without livecontext's search attributes: nothing to count, ever
        runtime.logger.warn(
          `livecontext_agents is not reported: the namespace cannot count agents by LivecontextRunState (${message.split('\n')[0]}). Add the search attributes (see docs/concepts.md).`,
        );
      } else {
        runtime.logger.debug('Counting agents by state failed; trying again at the next interval.', { error: message });
      }
    } finally {
      busy = false;
    }
  };
  const run = worker.run.bind(worker);
  worker.run = () => {
    setTimeout(() => void count(), 1000).unref(); // once the worker is running, then every interval
    const timer = setInterval(() => void count(), seconds * 1000);
    timer.unref();
    return run().finally(() => {
      stopped = true;
      clearInterval(timer);
    });
  };
  return true;
}
