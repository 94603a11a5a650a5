/**
 * Which tools an agent may use, and which approval policy applies to a call: the one place these rules
 * live (the tool step, the executor and the specs offered to the model all ask here). Names match
 * exactly; a name ending in `*` matches every tool with that prefix (`github_*`, as MCP servers' tools
 * are named), and `*` alone matches all.
 */
import type { AgentConfig } from './agent-config';

/** Whether `pattern` (an exact name or `prefix*`) covers `toolName`. */
export function matchesToolPattern(pattern: string, toolName: string): boolean {
  return pattern.endsWith('*') ? toolName.startsWith(pattern.slice(0, -1)) : pattern === toolName;
}

/** Whether an agent with this allowance (its config's `tools`; absent = every tool) may call `toolName`. */
export function toolAllowed(allowance: readonly string[] | undefined, toolName: string): boolean {
  return !allowance || allowance.some((p) => matchesToolPattern(p, toolName));
}

/** The agent's approval policy for `toolName`: an exact entry wins, then the longest matching pattern. */
export function approvalPolicy(approval: AgentConfig['approval'], toolName: string): 'always' | 'never' | undefined {
  if (!approval) return undefined;
  if (Object.prototype.hasOwnProperty.call(approval, toolName)) return approval[toolName];
  let best: string | undefined;
  for (const pattern of Object.keys(approval)) {
    if (pattern.endsWith('*') && matchesToolPattern(pattern, toolName) && (!best || pattern.length > best.length)) best = pattern;
  }
  return best === undefined ? undefined : approval[best];
}
