/**
 * What the MCP tools answer: text a model reads first, the same facts as JSON in `structuredContent`,
 * and failures as tool errors (`isError: true` with the reason) rather than protocol errors, so the
 * calling model sees why and can do something else.
 */
import type { CallToolResult } from '@modelcontextprotocol/sdk/types.js';
import type { Scope } from '../gateway-app';
import { toHttpError } from '../http-errors';

export function textResult(text: string, structured?: Record<string, unknown>): CallToolResult {
  return { content: [{ type: 'text', text }], ...(structured ? { structuredContent: structured } : {}) };
}

export function errorResult(text: string): CallToolResult {
  return { content: [{ type: 'text', text }], isError: true };
}

/** Thrown by a tool to answer with a tool error whose text is exactly `message`. */
export class ToolRefusal extends Error {
  constructor(message: string) {
    super(message);
    this.name = new.target.name;
  }
}

/** Refuses tools that change agents when the request came with a read-only token. */
export function requireFullScope(scope: Scope, what: string): void {
  if (scope === 'read')
    throw new ToolRefusal(`Refused: this token is read-only, and ${what} changes the agent. Use a token with full access (LIVECONTEXT_GATEWAY_TOKEN).`);
}

/**
 * The tool error for whatever a tool threw: the gateway's own mapping of Temporal and agent errors
 * (one place, shared with REST), worded for a model. Internal errors are logged, not shown.
 */
export function toolError(err: unknown, agentId: string | undefined, log: (message: string) => void): CallToolResult {
  if (err instanceof ToolRefusal) return errorResult(err.message);
  const e = toHttpError(err);
  switch (e.code) {
    case 'AGENT_NOT_FOUND':
      return errorResult(`No agent "${agentId ?? ''}" in this namespace; list_agents shows the running agents.`);
    case 'NO_WORKER':
      return errorResult(`No worker runs agent "${agentId ?? ''}" right now, so it cannot answer: ${e.message} Try again once a worker is up.`);
    case 'INTERNAL':
      log(`gateway /mcp: ${(err as Error)?.stack ?? String(err)}`);
      return errorResult('Internal error in the livecontext gateway; see its log.');
    default:
      return errorResult(`${e.code}: ${e.message}`);
  }
}
