/**
 * A short workflow a client runs to see what one model call of an agent was sent (`livecontext inspect
 * --call`): its one local activity, on the worker that takes the workflow task, renders the call again
 * from the agent's history with that worker's tools and providers and checks it against the call's
 * fingerprint (activities/inspect-call.ts). It reads the agent; it never changes it.
 */
import { proxyLocalActivities } from '@temporalio/workflow';
import type { InspectCallInput, InspectedCall, createActivities } from '../activities/index';

export type { InspectCallInput, InspectedCall };

const { inspectModelCall } = proxyLocalActivities<ReturnType<typeof createActivities>>({
  startToCloseTimeout: '60 seconds',
  // A few tries for a worker busy or restarting; a refusal (not a model call) is not retried.
  retry: { maximumAttempts: 3, nonRetryableErrorTypes: ['NotAModelCall'] },
});

export async function inspectCallWorkflow(request: InspectCallInput): Promise<InspectedCall> {
  return inspectModelCall(request);
}
