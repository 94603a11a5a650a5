/**
 * A worker's MCP servers, started only when some are configured (the SDK is not even loaded otherwise):
 * their tools discovered and added to the worker's registry, the connections closed when the worker's
 * run ends.
 */
import { Runtime, type Worker } from '@temporalio/worker';
import type { ToolRegistry } from '../activities/tools/registry';
import type { McpPool, McpServerConfig, McpServersFile } from '../activities/mcp/index';

/** `{ mcpServers: {...} }` as in the ecosystem's files, its inner object, or configs already parsed. */
export type McpServersOption = McpServersFile | McpServersFile['mcpServers'] | McpServerConfig[];

export async function startMcpServers(option: McpServersOption, registry: ToolRegistry, progress?: (step: string) => void): Promise<McpPool> {
  const { McpPool, parseMcpConfig } = await import('../activities/mcp/index');
  const configs = Array.isArray(option) ? option : parseMcpConfig(option);
  const pool = new McpPool(configs, Runtime.instance().logger);
  if (configs.length) progress?.(`starting MCP servers: ${configs.map((c) => c.name).join(', ')}…`);
  await pool.discover();
  pool.attach(registry);
  // A person watching start-up sees at once which servers are missing, not only the logs.
  for (const s of pool.status()) progress?.(s.connected ? `MCP server "${s.name}": ${s.tools.length} tools` : `MCP server "${s.name}" skipped: ${s.error ?? 'not connected'}`);
  return pool;
}

/** Closes the pool when the worker's run ends, however it ends (run() and runUntil() both go through run()). */
export function closeWithWorker(worker: Worker, pool: McpPool): void {
  const run = worker.run.bind(worker);
  worker.run = () => run().finally(() => pool.close());
}
