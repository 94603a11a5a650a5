/**
 * `get_state`: an agent's state as `livecontext state` shows it (run state, model, usage, calls waiting
 * for approval, tasks), the full state JSON as structuredContent, and with input_seq what became of that
 * input: the way to the answer of a send_message whose wait ended first.
 */
import type { McpServer } from '@modelcontextprotocol/sdk/server/mcp.js';
import { z } from 'zod';
import { describeState, runStateWord } from '../../client/state-view';
import { awaitTurn } from './await-turn';
import type { McpToolContext } from './tool-context';
import { reportTurn, unknownOutcomeLines } from './turn-report';
import { textResult, toolError } from './tool-results';

export function registerGetState(server: McpServer, ctx: McpToolContext): void {
  server.registerTool(
    'get_state',
    {
      title: "Get an agent's state",
      description:
        "Shows an agent's state: whether it waits for input, works, waits for a tool call to be approved (with the call ids to pass to approve_tool_call), waits on a call whose outcome is unknown (with the ids to pass to resolve_tool_call) or is blocked by an error; its model, usage, notebook and tasks. With input_seq (from send_message) it also gives that input's answer once the agent has finished the turn, without waiting.",
      inputSchema: {
        agent_id: z.string().min(1).describe('The agent (see list_agents).'),
        input_seq: z
          .number()
          .int()
          .positive()
          .optional()
          .describe('An input_seq from send_message: include what became of that input (its answer once finished).'),
      },
      annotations: { readOnlyHint: true, openWorldHint: false },
    },
    async ({ agent_id, input_seq }) => {
      try {
        const state = await ctx.agents.state(agent_id);
        const lines = [describeState(agent_id, state)];
        const unknown = unknownOutcomeLines(agent_id, state);
        if (unknown.length) lines.push('waiting on an unknown outcome:', ...unknown);
        if (state.notebook.trim()) lines.push(`notebook:\n${state.notebook}`);
        let turn: Record<string, unknown> | undefined;
        if (input_seq !== undefined) {
          if (input_seq >= state.nextInputSeq) {
            lines.push(`input #${input_seq}: the agent has not received it (its last input is #${state.nextInputSeq - 1}).`);
          } else {
            const report = reportTurn(agent_id, input_seq, await awaitTurn(ctx.agents, agent_id, input_seq, { waitMs: 0 }));
            turn = report.structured;
            lines.push(report.structured.status === 'answered' ? `answer to input #${input_seq}:\n${report.text}` : `input #${input_seq}: ${report.text}`);
          }
        }
        return textResult(lines.join('\n'), { agent_id, run_state: runStateWord(state), state, ...(turn ? { turn } : {}) });
      } catch (err) {
        return toolError(err, agent_id, ctx.log);
      }
    },
  );
}
