/**
 * The agent a run starts from: a carried or imported snapshot, or a new agent from its configuration
 * (and first input). A start input that cannot make an agent fails the run at once (not a workflow task
 * retried forever). Except a carried state this worker cannot decode (a missing key or blob): that is
 * the agent's own data, so the task fails and is retried — perhaps by a worker that can — instead of
 * ending the agent.
 */
import { ApplicationFailure, workflowInfo } from '@temporalio/workflow';
import { Agent, AgentConfig, InfrastructureError, undecodableReason } from '../../agent/index';
import type { AgentWorkflowInput } from '../messages';

export function createAgent(input: AgentWorkflowInput, clock: () => number, changed: (change: string) => boolean): Agent {
  const undecodable = undecodableReason(input) ?? undecodableReason((input as { snapshot?: unknown })?.snapshot);
  if (undecodable !== undefined && workflowInfo().continuedFromExecutionRunId) {
    throw new InfrastructureError('UNDECODABLE_STATE', `This worker cannot decode the agent's carried state: ${undecodable}`);
  }
  try {
    if (input && 'snapshot' in input) {
      // Only continue-as-new, which workflow code alone can do, may say its snapshot was checked.
      const checked = input.checked === true && workflowInfo().continuedFromExecutionRunId !== undefined;
      return Agent.fromSnapshot(input.snapshot, clock, { imported: input.imported === true, checked, since: changed });
    }
    const agent = Agent.create({ config: AgentConfig.parse(input?.config), systemInstruction: input?.systemInstruction, clock });
    if (input?.initialInput !== undefined) agent.enqueueInput(input.initialInput, { since: changed });
    return agent;
  } catch (err) {
    throw ApplicationFailure.nonRetryable(`Cannot start the agent: ${(err as Error).message}`, 'BAD_START_INPUT');
  }
}
