/** What every MCP tool of the gateway gets: the agents, the caller's scope, and the wait limits. */
import type { AgentClient } from '../../client/agent-client';
import type { Scope } from '../gateway-app';
import type { McpClientInfo } from './mcp-client-token';

export interface McpToolContext {
  agents: AgentClient;
  /** The request's token scope: `read` may list and look, never change an agent. */
  scope: Scope;
  /** The longest send_message waits for an answer before it returns the inputSeq instead. */
  waitCapMs: number;
  /** How often a waiting send_message reads the agent's state. */
  pollMs: number;
  log: (message: string) => void;
  /** What the calling client declared at initialize (its name, whether it takes elicitation), when known. */
  client?: McpClientInfo;
}

/**
 * 45 s: below the 60 s an MCP client gives a request by default (the SDK's DEFAULT_REQUEST_TIMEOUT_MSEC),
 * so the host gets the inputSeq and the way to the answer rather than a timeout of its own.
 */
export const DEFAULT_WAIT_CAP_MS = 45_000;
