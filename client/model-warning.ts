/**
 * What `livecontext start`, `configure`, `up` and the gateway's POST /agents warn about before an
 * agent's first model call: a model whose provider the worker does not have, or cannot call (its API
 * key is not set there). The agent is started or configured all the same — the worker may be given the
 * key, or the agent another model. Asked of a worker through workerInfoWorkflow (client/worker-info.ts).
 */
import { splitModelName } from '../agent/index';
import type { AgentClient } from './agent-client';
import { NoWorkerError } from './worker-status';

/** How the warning names the ways out, in the words of the client that shows it. */
export interface ModelWarningWords {
  /** Default: `livecontext configure <id> --model provider:model`. */
  otherModel?: string;
  /** Default: `livecontext retry <id>`. */
  retry?: string;
}

/** Why an agent on `model` (run on `taskQueue`) cannot make model calls yet, or undefined if it can. */
/** The words of the console chat (and `npm start`'s, which runs it). */
export const CHAT_MODEL_WORDS: ModelWarningWords = { otherModel: '/model provider:model', retry: '/retry' };

export async function modelWarning(
  agents: AgentClient,
  agentId: string,
  model: string,
  taskQueue: string,
  words: ModelWarningWords = {},
): Promise<string | undefined> {
  const providerId = splitModelName(model).provider;
  const otherModel = words.otherModel ?? `\`livecontext configure ${agentId} --model provider:model\``;
  const retry = words.retry ?? `\`livecontext retry ${agentId}\``;
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
