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
import { TurnTaskStore } from './turn-task-store';

const INSTRUCTIONS =
  'livecontext agents are long-lived LLM agents that survive crashes and keep their whole history. ' +
  'list_agents finds them; send_message talks to one and returns its answer; when an agent waits for a tool call to be approved, ' +
  'approve_tool_call decides it, when it waits on a tool call whose outcome is unknown (its worker died mid-run), resolve_tool_call says what happened, ' +
  'and get_state {agent_id, input_seq} gives the answer afterwards. ' +
  "A host that declares form elicitation is asked about a turn's approvals and questions directly while send_message waits.";

/** The version of this MCP interface (its tools and their arguments), which hosts see at initialize. */
export const MCP_SERVER_VERSION = '1.3.0';

/** The SDK's McpServer method that answers a task-capable tool called without a task (it polls the task to its end). */
type PlainCallOfTaskTool = (tool: unknown, request: { params: { arguments?: unknown } }, extra: never) => Promise<unknown>;

export function createAgentsMcpServer(ctx: McpToolContext): McpServer {
  const server = new McpServer(
    { name: 'livecontext', title: 'livecontext agents', version: MCP_SERVER_VERSION },
    {
      instructions: INSTRUCTIONS,
      // send_message may be called as a task; its tasks are the agents' turns (no list: find them from their agent).
      taskStore: new TurnTaskStore(ctx),
      capabilities: { tasks: { cancel: {}, requests: { tools: { call: {} } } } },
    },
  );
  registerListAgents(server, ctx);
  const send = registerSendMessage(server, ctx);
  // A send_message without a task keeps its capped wait that ends early on an approval. The SDK offers no
  // option for this, so its one method for that case is wrapped; a test fails if the SDK renames it.
  const polling = server as unknown as { handleAutomaticTaskPolling?: PlainCallOfTaskTool };
  const sdkPlainCall = polling.handleAutomaticTaskPolling?.bind(server);
  if (!sdkPlainCall) throw new Error('@modelcontextprotocol/sdk changed: McpServer.handleAutomaticTaskPolling is gone (see agents-mcp-server.ts).');
  polling.handleAutomaticTaskPolling = (tool, request, extra) =>
    tool === send.tool ? send.plainCall(request.params.arguments, extra) : sdkPlainCall(tool, request, extra);
  registerGetState(server, ctx);
  registerApproveToolCall(server, ctx);
  registerResolveToolCall(server, ctx);
  return server;
}
