/**
 * A short workflow a client runs to ask a worker of a task queue which model providers it can call,
 * so `livecontext start` and `configure` can warn before an agent's first model call fails. Its one
 * local activity runs on the worker that took the workflow task: the answer is that worker's (provider
 * ids, and what is missing — never a key). Separate from the agent workflow, which it never touches.
 */
import { proxyLocalActivities } from '@temporalio/workflow';
import type { ProviderReadiness, createActivities } from '../activities/index';

export interface WorkerInfo {
  providers: ProviderReadiness[];
}

const { describeProviders } = proxyLocalActivities<ReturnType<typeof createActivities>>({
  startToCloseTimeout: '5 seconds',
  retry: { maximumAttempts: 1 }, // a worker without this activity (an older version) answers nothing, at once
});

export async function workerInfoWorkflow(): Promise<WorkerInfo> {
  return { providers: await describeProviders() };
}
