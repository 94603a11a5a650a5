/**
 * The MCP tool catalog a model call reports to its agent (see ToolCatalog in agent/tool-spec): the MCP
 * servers' tools (then the remote A2A agents' tools, whose descriptions come from their cards) within the agent's allowance, identified by a digest. Reported only when it differs
 * from the digest the agent holds, so it enters history once per change, not with every call.
 */
import { createHash } from 'node:crypto';
import type { ToolCatalog } from '../agent/index';
import type { ToolRegistry } from './tools/registry';

/** A catalog larger than this is not recorded (the tools are still offered): it would weigh on every run. */
export const MAX_CATALOG_BYTES = 512 * 1024;

export function catalogChange(tools: ToolRegistry, allowance: readonly string[] | undefined, heldDigest: string | undefined): ToolCatalog | undefined {
  // MCP tools first, as before A2A tools existed: an agent without A2A tools keeps its digest.
  const specs = [...tools.specsFromSources('mcp:', allowance), ...tools.specsFromSources('a2a:', allowance)];
  if (specs.length === 0 && heldDigest === undefined) return undefined; // an agent without MCP tools records nothing
  const json = JSON.stringify(specs);
  const digest = createHash('sha256').update(json).digest('hex').slice(0, 32);
  if (digest === heldDigest || json.length > MAX_CATALOG_BYTES) return undefined;
  return { digest, tools: specs };
}
