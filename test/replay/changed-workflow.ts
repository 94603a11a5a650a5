/**
 * A deliberately incompatible change to the agent workflow (a timer before the agent starts), used to
 * prove that the replay test catches non-determinism.
 */
import { sleep } from '@temporalio/workflow';
import { agentWorkflow as current } from '../../workflows/agent-workflow';
import type { AgentWorkflowInput } from '../../workflows/messages';

export async function agentWorkflow(input: AgentWorkflowInput) {
  await sleep('1 second');
  return current(input);
}
