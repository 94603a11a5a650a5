/**
 * `livecontext mcp list`: the MCP servers of a configuration file, whether each connects from here, and
 * the tools each offers under the names agents see. Exit status 1 when a server cannot be reached (or
 * its tool list goes past the bounds of discovery); 2 when there is no configuration to read.
 */
import { existsSync } from 'node:fs';
import path from 'node:path';
import type { McpServerStatus } from '../activities/mcp/index';
import { MCP_CONFIG_EXAMPLE } from '../activities/mcp/config';
import { UserError } from '../common/user-error';
import { terminalJson, terminalText } from './terminal-text';

/** `file` is the --mcp option, or undefined for the default ./mcp.json. */
export async function mcpListCmd(file: string | undefined, json: boolean): Promise<number> {
  const where = path.resolve(file ?? 'mcp.json');
  if (file === undefined && !existsSync(where)) {
    throw new UserError(`No mcp.json here: livecontext mcp list looked for ${where} (give another file with --mcp FILE). ${MCP_CONFIG_EXAMPLE}`, 'MCP_CONFIG');
  }
  const { McpPool, loadMcpConfigFile } = await import('../activities/mcp/index');
  const configs = loadMcpConfigFile(where);
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
  if (!s.connected) return `${s.name} (${s.transport}): unavailable — ${s.error ?? 'unknown error'}`;
  const width = Math.max(0, ...s.tools.map((t) => t.name.length));
  const tools = s.tools.map((t) => `  ${t.name.padEnd(width)}  ${t.needsApproval ? '[needs approval] ' : ''}${firstLine(t.description)}`);
  const skipped = (s.skippedTools ?? []).map((t) => `  (not offered: tool "${t.mcpName}": ${t.reason})`);
  return [`${s.name} (${s.transport}): connected, ${s.tools.length} tool${s.tools.length === 1 ? '' : 's'}`, ...tools, ...skipped].join('\n');
}

const firstLine = (text: string) => {
  const line = text.split('\n')[0].trim();
  return line.length > 100 ? `${line.slice(0, 99)}…` : line;
};
