/**
 * A worker's remote A2A agents, started only when some are configured (the A2A SDK's client is not even
 * loaded otherwise): their cards read and one tool each added to the worker's registry.
 */
import { Runtime } from '@temporalio/worker';
import type { ToolRegistry } from '../activities/tools/registry';
import type { A2aAgentConfig, A2aAgents, A2aAgentsFile } from '../activities/a2a/index';

/** `{ a2aAgents: {...} }` (a file that may hold `mcpServers` too), its inner object, or configs already parsed. */
export type A2aAgentsOption = A2aAgentsFile | A2aAgentsFile['a2aAgents'] | A2aAgentConfig[];

export async function startA2aAgents(option: A2aAgentsOption, registry: ToolRegistry, progress?: (step: string) => void): Promise<A2aAgents> {
  const { A2aAgents, parseA2aConfig } = await import('../activities/a2a/index');
  const configs = Array.isArray(option) ? option : parseA2aConfig(option);
  const agents = new A2aAgents(configs, Runtime.instance().logger);
  if (configs.length) progress?.(`reading A2A agents' cards: ${configs.map((c) => c.name).join(', ')}…`);
  await agents.discover();
  agents.attach(registry);
  for (const s of agents.status())
    progress?.(s.connected ? `A2A agent "${s.name}": ${s.agentName} (${s.skills?.length ?? 0} skills)` : `A2A agent "${s.name}": ${s.error}`);
  return agents;
}
