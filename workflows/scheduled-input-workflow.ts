/**
 * What a livecontext schedule starts at each of its times (a Temporal Schedule can only start
 * workflows): a short workflow that delivers one input to the agent, starting the agent first when the
 * schedule says so. Its workflow id is the schedule's plus the time it was scheduled for, so that id is
 * the input's idempotency key: a time delivered twice (a retried activity, a restarted worker) is still
 * one input, one turn.
 */
import { proxyActivities, workflowInfo } from '@temporalio/workflow';
import type { createActivities } from '../activities/index';
import type { ScheduledInput } from './messages';

const { deliverScheduledInput } = proxyActivities<ReturnType<typeof createActivities>>({
  startToCloseTimeout: '30 seconds',
  // An agent whose worker is down for a while still gets its input, once a worker is back.
  retry: { initialInterval: '1 second', maximumInterval: '1 minute', maximumAttempts: 30, nonRetryableErrorTypes: ['AgentNotFound'] },
});

export async function scheduledInputWorkflow(input: ScheduledInput): Promise<{ agentId: string }> {
  return deliverScheduledInput({ ...input, idempotencyKey: `schedule:${workflowInfo().workflowId}` });
}
