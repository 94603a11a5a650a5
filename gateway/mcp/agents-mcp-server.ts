/**
 * The gateway's MCP server: durable agents as tools any MCP host (Claude Desktop, Cursor, another
 * livecontext agent) can call. One is built per request, holding nothing between requests.
 */
import { McpServer } from '@modelcontextprotocol/sdk/server/mcp.js';
import { registerApproveToolCall } from './approve-tool-call-tool';
import { registerGetState } from './get-state-tool';
import { registerListAgents } from './list-agents-tool';
import { registerResolveToolCall } from './resolve-tool-call-tool';
import { registerSendMessage } from './send-message-tool';
import type { McpToolContext } from './tool-context';

const INSTRUCTIONS =
  'livecontext agents are long-lived LLM agents that survive crashes and keep their whole history. ' +
  'list_agents finds them; send_message talks to one and returns its answer; when an agent waits for a tool call to be approved, ' +
  'approve_tool_call decides it, when it waits on a tool call whose outcome is unknown (its worker died mid-run), resolve_tool_call says what happened, ' +
  'and get_state {agent_id, input_seq} gives the answer afterwards.';

/** The version of this MCP interface (its tools and their arguments), which hosts see at initialize. */
export const MCP_SERVER_VERSION = '1.1.0';

export function createAgentsMcpServer(ctx: McpToolContext): McpServer {
  const server = new McpServer({ name: 'livecontext', title: 'livecontext agents', version: MCP_SERVER_VERSION }, { instructions: INSTRUCTIONS });
  registerListAgents(server, ctx);
  registerSendMessage(server, ctx);
  registerGetState(server, ctx);
  registerApproveToolCall(server, ctx);
  registerResolveToolCall(server, ctx);
  return server;
}
