/**
 * `livecontext mcp list`: the MCP servers of a configuration file, whether each connects from here, and
 * the tools each offers under the names agents see. Exit status 1 when a server cannot be reached.
 */
import path from 'node:path';
import type { McpServerStatus } from '../activities/mcp/index';
import { UserError } from '../common/user-error';
import { terminalJson, terminalText } from './terminal-text';

export async function mcpListCmd(file: string, json: boolean): Promise<number> {
  const { McpPool, loadMcpConfigFile } = await import('../activities/mcp/index');
  const configs = loadMcpConfigFile(path.resolve(file));
  if (!configs.length) throw new UserError(`No MCP servers in ${file}.`, 'MCP_CONFIG');
  const pool = new McpPool(configs);
  try {
    await pool.discover();
    const status = pool.status();
    console.log(json ? terminalJson(status) : terminalText(status.map(describeServer).join('\n\n')));
    return status.every((s) => s.connected) ? 0 : 1;
  } finally {
    await pool.close();
  }
}

function describeServer(s: McpServerStatus): string {
  if (!s.connected) return `${s.name} (${s.transport}): not connected — ${s.error ?? 'unknown error'}`;
  const width = Math.max(0, ...s.tools.map((t) => t.name.length));
  const tools = s.tools.map((t) => `  ${t.name.padEnd(width)}  ${t.needsApproval ? '[needs approval] ' : ''}${firstLine(t.description)}`);
  return [`${s.name} (${s.transport}): connected, ${s.tools.length} tool${s.tools.length === 1 ? '' : 's'}`, ...tools].join('\n');
}

const firstLine = (text: string) => {
  const line = text.split('\n')[0].trim();
  return line.length > 100 ? `${line.slice(0, 99)}…` : line;
};
