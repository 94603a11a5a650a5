/**
 * The activity of scheduledInputWorkflow: one input to an agent, with the schedule time's idempotency
 * key, by signal — or by signal-with-start when the schedule may start the agent. Uses the worker's own
 * client (its connection, namespace and data converter), on the task queue this activity runs on, which
 * is the agents' (the schedule starts its workflow there).
 */
import { ApplicationFailure, Context } from '@temporalio/activity';
import { WorkflowNotFoundError } from '@temporalio/client';
import { type ScheduledInput, WORKFLOW_TYPE, inputSignal } from '../workflows/messages';

export async function deliverScheduledInput(input: ScheduledInput & { idempotencyKey: string }): Promise<{ agentId: string }> {
  const ctx = Context.current();
  const signalArgs = [{ text: input.text, sender: input.sender ?? 'schedule', idempotencyKey: input.idempotencyKey }] as const;
  if (input.startIfMissing) {
    await ctx.client.workflow.signalWithStart(WORKFLOW_TYPE, {
      workflowId: input.agentId,
      taskQueue: ctx.info.taskQueue,
      args: [input.startIfMissing],
      signal: inputSignal,
      signalArgs: [...signalArgs],
      staticSummary: `livecontext agent (${input.startIfMissing.config.model})`,
    });
    return { agentId: input.agentId };
  }
  try {
    await ctx.client.workflow.getHandle(input.agentId).signal(inputSignal, ...signalArgs);
  } catch (err) {
    if (err instanceof WorkflowNotFoundError) {
      throw ApplicationFailure.create({
        type: 'AgentNotFound',
        nonRetryable: true,
        message: `No running agent "${input.agentId}"; the schedule does not start one (add it with startIfMissing / --start-model).`,
      });
    }
    throw err;
  }
  return { agentId: input.agentId };
}
