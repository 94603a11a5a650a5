/** `list_agents`: the agents of the namespace, with run state and model (AgentClient.list). */
import type { McpServer } from '@modelcontextprotocol/sdk/server/mcp.js';
import { z } from 'zod';
import type { McpToolContext } from './tool-context';
import { textResult, toolError } from './tool-results';

export function registerListAgents(server: McpServer, ctx: McpToolContext): void {
  server.registerTool(
    'list_agents',
    {
      title: 'List agents',
      description:
        'Lists the durable livecontext agents you can talk to: each agent id with its run state (waiting for input, working, waiting for approval, blocked by an error…) and model. Running agents only, unless all is true.',
      inputSchema: { all: z.boolean().optional().describe('Also list agents that have stopped or ended (default false).') },
      annotations: { readOnlyHint: true, openWorldHint: false },
    },
    async ({ all }) => {
      try {
        const agents = await ctx.agents.list({ all: all ?? false });
        const rows = agents.map((a) => ({
          agent_id: a.agentId,
          run_state: a.stateWord,
          model: a.model,
          started: a.startTime,
        }));
        const text = rows.length
          ? rows.map((r) => `${r.agent_id}: ${r.run_state}${r.model ? `, model ${r.model}` : ''}, started ${r.started}`).join('\n')
          : all
            ? 'No agents.'
            : 'No running agents (all: true lists ended ones too).';
        return textResult(text, { agents: rows });
      } catch (err) {
        return toolError(err, undefined, ctx.log);
      }
    },
  );
}
