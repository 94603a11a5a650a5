/**
 * `resolve_tool_call`: resolve a tool call whose outcome is unknown (its worker died mid-run, so whether
 * its effect happened is not known; the agent waits): it happened (done, with the result its model sees),
 * it did not (failed, with why), or run it again (retry). AgentClient.resolveToolCall, as `livecontext resolve`.
 */
import type { McpServer } from '@modelcontextprotocol/sdk/server/mcp.js';
import { z } from 'zod';
import { runStateWord } from '../../client/state-view';
import type { McpToolContext } from './tool-context';
import { unknownOutcomeLines } from './turn-report';
import { ToolRefusal, requireFullScope, textResult, toolError } from './tool-results';

/** Recorded as who resolved when the caller names no one. */
const DEFAULT_RESOLVER = 'mcp';

export function registerResolveToolCall(server: McpServer, ctx: McpToolContext): void {
  server.registerTool(
    'resolve_tool_call',
    {
      title: 'Resolve a tool call whose outcome is unknown',
      description:
        "Resolves a tool call an agent waits on because its outcome is unknown (its worker died while it ran, and the tool can neither check nor safely run again; get_state lists these calls, with the effect's key to look it up where it would have happened). outcome: done (it happened; text is the result the agent's model sees), failed (it did not; text says why) or retry (run it again: only when a second run does no harm). The agent then goes on with its turn: read the answer with get_state {agent_id, input_seq}.",
      inputSchema: {
        agent_id: z.string().min(1).describe('The agent (see list_agents).'),
        tool_call_id: z.string().min(1).describe('The call whose outcome is unknown, as get_state or send_message named it.'),
        outcome: z.enum(['done', 'failed', 'retry']).describe('done: it happened; failed: it did not; retry: run it again.'),
        text: z.string().max(65536).optional().describe('With done, the result the model sees; with failed, why (required for both).'),
        by: z.string().max(200).optional().describe(`Who resolves, recorded with the result (default "${DEFAULT_RESOLVER}").`),
      },
      annotations: { readOnlyHint: false, destructiveHint: true, idempotentHint: false, openWorldHint: true },
    },
    async ({ agent_id, tool_call_id, outcome, text, by }) => {
      try {
        requireFullScope(ctx.scope, 'resolve_tool_call');
        if (outcome !== 'retry' && !text?.trim()) {
          throw new ToolRefusal(
            `outcome "${outcome}" needs a text: ${outcome === 'done' ? 'what happened (the result the model sees)' : 'why it did not happen'}.`,
          );
        }
        const how = outcome === 'done' ? { done: text! } : outcome === 'failed' ? { failed: text! } : { retry: true as const };
        const state = await ctx.agents.resolveToolCall(agent_id, { toolCallId: tool_call_id, ...how, by: by ?? DEFAULT_RESOLVER, door: 'mcp' });
        const next = state.unknownOutcomes?.length
          ? ['Still waiting on an unknown outcome:', ...unknownOutcomeLines(agent_id, state)]
          : [`Agent "${agent_id}" is now ${runStateWord(state)}.`];
        return textResult([`Resolved tool call ${tool_call_id}: ${outcome === 'retry' ? 'it runs again' : outcome}.`, ...next].join('\n'), {
          agent_id,
          tool_call_id,
          outcome,
          run_state: runStateWord(state),
          unknown_outcomes: state.unknownOutcomes ?? [],
        });
      } catch (err) {
        return toolError(err, agent_id, ctx.log);
      }
    },
  );
}
