/**
 * What `start` and `configure` warn about before an agent's first model call: a model whose provider
 * the worker does not have, or cannot call (its API key is not set there). The agent is started or
 * configured all the same — the worker may be given the key, or the agent another model.
 */
import type { AgentClient } from '../client/agent-client';
import { NoWorkerError } from '../client/worker-status';
import { ModelName } from '../agent/index';
import { UserError } from '../common/user-error';

/**
 * Why an agent on `model` (run on `taskQueue`) cannot make model calls yet, or undefined if it can.
 * `from`: where the person reads it, for the commands it suggests (the chat has its own).
 */
export async function modelWarning(agents: AgentClient, agentId: string, model: string, taskQueue: string, from: 'cli' | 'chat' = 'cli'): Promise<string | undefined> {
  const providerId = model.slice(0, model.indexOf(':'));
  const otherModel = from === 'chat' ? '/model provider:model' : `\`livecontext configure ${agentId} --model provider:model\``;
  const retry = from === 'chat' ? '/retry' : `\`livecontext retry ${agentId}\``;
  let providers;
  try {
    ({ providers } = await agents.workerInfo(taskQueue));
  } catch (err) {
    if (err instanceof NoWorkerError) return `${err.message} Agent "${agentId}" waits until one does.`;
    return `could not ask a worker whether it can call ${model}: ${(err as Error).message.split('\n')[0]}`;
  }
  const provider = providers.find((p) => p.id === providerId);
  if (!provider) {
    return (
      `the worker has no model provider "${providerId}" (it has ${providers.map((p) => p.id).join(', ')}), so agent "${agentId}" cannot call ${model}: ` +
      `it will be blocked at its next model call until a worker registers that provider; or choose another model: ${otherModel}.`
    );
  }
  if (!provider.ready) {
    const problem = provider.problem ?? `"${providerId}:" models cannot be called on the worker.`;
    return `${problem} Agent "${agentId}" will be blocked at its next model call until the worker has it (then ${retry}); or choose another model: ${otherModel}.`;
  }
  return undefined;
}

export function checkModel(model: string): string {
  if (!ModelName.safeParse(model).success) {
    throw new UserError(`Invalid model name "${model}": name it provider:model, e.g. openai:gpt-4.1-mini or anthropic:claude-sonnet-4-6.`);
  }
  return model;
}
