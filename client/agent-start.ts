/**
 * Starting an agent workflow: a new agent's configuration checked before anything starts, and the start
 * itself, with the search attributes that make agents findable when the namespace has them.
 */
import { type Client, WorkflowIdReusePolicy, type WorkflowHandleWithFirstExecutionRunId } from '@temporalio/client';
import { type SearchAttributePair, TypedSearchAttributes } from '@temporalio/common';
import { type AgentConfig, InputRejectedError, NewAgentConfig, splitModelName } from '../agent/index';
import type { agentWorkflow } from '../workflows/index';
import { type AgentWorkflowInput, WORKFLOW_TYPE, MODEL_ATTRIBUTE, PROVIDER_ATTRIBUTE, RUN_STATE_ATTRIBUTE } from '../workflows/messages';
import type { AgentClientOptions } from './agent-client';
import { errorText } from './retry';

export interface StartAgentOptions extends AgentConfig {
  systemInstruction?: string;
}

/** A new agent's workflow input; a configuration that would fail the run at once is refused here, with the reason. */
export function newAgentInput(options: StartAgentOptions): AgentWorkflowInput {
  const { systemInstruction, ...raw } = options;
  const parsed = NewAgentConfig.safeParse(raw);
  if (!parsed.success) {
    throw new InputRejectedError('BAD_CONFIG', parsed.error.issues.map((i) => `${i.path.join('.') || 'config'}: ${i.message}`).join('; '));
  }
  const config = parsed.data;
  return systemInstruction ? { config, systemInstruction } : { config };
}

/**
 * What a new agent is listed as until its run writes otherwise: one without a first input waits for one
 * (listed so from the start, its first rest writes nothing: workflows/agent-run/search-attributes.ts);
 * one with a first input, or from a snapshot, is working.
 */
export function listedAtStart(input: AgentWorkflowInput): 'WaitingInput' | 'Working' {
  return 'config' in input && !input.initialInput ? 'WaitingInput' : 'Working';
}

export async function startAgentWorkflow(
  client: Client,
  taskQueue: string,
  clientOptions: AgentClientOptions,
  agentId: string,
  input: AgentWorkflowInput,
  /**
   * More search attributes (a fork's LivecontextForkedFrom) and a memo. A namespace without the extra
   * attributes starts the agent with the usual ones; one without those, with none.
   */
  extra: { searchAttributes?: SearchAttributePair[]; memo?: Record<string, unknown> } = {},
): Promise<WorkflowHandleWithFirstExecutionRunId<typeof agentWorkflow>> {
  const model = 'snapshot' in input ? input.snapshot.config.model : input.config.model;
  const options = {
    workflowId: agentId,
    taskQueue,
    args: [input] as [AgentWorkflowInput],
    workflowIdReusePolicy: WorkflowIdReusePolicy.ALLOW_DUPLICATE,
    staticSummary: `livecontext agent (${model})`,
    ...(extra.memo ? { memo: extra.memo } : {}),
    ...(clientOptions.workflowTaskTimeout ? { workflowTaskTimeout: clientOptions.workflowTaskTimeout } : {}),
  };
  if (clientOptions.searchAttributes === false) return client.workflow.start<typeof agentWorkflow>(WORKFLOW_TYPE, options);
  const usual: SearchAttributePair[] = [
    { key: RUN_STATE_ATTRIBUTE, value: listedAtStart(input) },
    { key: MODEL_ATTRIBUTE, value: model },
    { key: PROVIDER_ATTRIBUTE, value: splitModelName(model).provider },
  ];
  const tries = extra.searchAttributes?.length ? [[...usual, ...extra.searchAttributes], usual] : [usual];
  for (const attributes of tries) {
    try {
      return await client.workflow.start<typeof agentWorkflow>(WORKFLOW_TYPE, { ...options, typedSearchAttributes: new TypedSearchAttributes(attributes) });
    } catch (err) {
      // A namespace without the livecontext search attributes still runs agents, just less findable.
      if (!/search attribute/i.test(errorText(err))) throw err;
    }
  }
  return client.workflow.start<typeof agentWorkflow>(WORKFLOW_TYPE, options);
}
