/** `approve_tool_call`: approve or deny a tool call an agent waits on (AgentClient.decide). */
import type { McpServer } from '@modelcontextprotocol/sdk/server/mcp.js';
import { z } from 'zod';
import { runStateWord } from '../../client/state-view';
import type { McpToolContext } from './tool-context';
import { approvalLines } from './turn-report';
import { requireFullScope, textResult, toolError } from './tool-results';

/** Recorded as who decided when the caller names no one. */
const DEFAULT_DECIDER = 'mcp';

export function registerApproveToolCall(server: McpServer, ctx: McpToolContext): void {
  server.registerTool(
    'approve_tool_call',
    {
      title: 'Approve or deny a tool call',
      description:
        "Approves (approve: true, the default) or denies (approve: false, with a reason the agent's model is shown) a tool call an agent is waiting on; get_state lists the waiting calls and their tool_call_id. The agent then goes on with its turn: read the answer with get_state {agent_id, input_seq}.",
      inputSchema: {
        agent_id: z.string().min(1).describe('The agent (see list_agents).'),
        tool_call_id: z.string().min(1).describe('The waiting call, as get_state or send_message named it.'),
        approve: z.boolean().default(true).describe('true approves the call, false denies it (default true).'),
        reason: z.string().max(4096).optional().describe("Why, when denying: the agent's model sees it."),
        by: z.string().max(200).optional().describe(`Who decides, recorded with the decision (default "${DEFAULT_DECIDER}").`),
      },
      annotations: { readOnlyHint: false, destructiveHint: true, idempotentHint: false, openWorldHint: true },
    },
    async ({ agent_id, tool_call_id, approve, reason, by }) => {
      try {
        requireFullScope(ctx.scope, 'approve_tool_call');
        const state = await ctx.agents.decide(agent_id, {
          toolCallId: tool_call_id,
          approved: approve,
          ...(reason ? { reason } : {}),
          by: by ?? DEFAULT_DECIDER,
          door: 'mcp',
        });
        const next = state.awaitingApproval.length
          ? ['Still waiting for approval:', ...approvalLines(agent_id, state)]
          : [`Agent "${agent_id}" is now ${runStateWord(state)}.`];
        return textResult([`${approve ? 'Approved' : 'Denied'} tool call ${tool_call_id}.`, ...next].join('\n'), {
          agent_id,
          tool_call_id,
          approved: approve,
          run_state: runStateWord(state),
          awaiting_approval: state.awaitingApproval,
        });
      } catch (err) {
        return toolError(err, agent_id, ctx.log);
      }
    },
  );
}
