/**
 * `send_message`: input to an agent (AgentClient.send), and by default its answer. The wait is capped
 * (see DEFAULT_WAIT_CAP_MS) and ends early when the agent needs a person (an approval), so the request
 * is never held open indefinitely; the reply then names the inputSeq and how to get the answer later.
 */
import { checkPlainInputKey } from '../../agent/index';
import type { McpServer } from '@modelcontextprotocol/sdk/server/mcp.js';
import { z } from 'zod';
import { awaitTurn } from './await-turn';
import type { McpToolContext } from './tool-context';
import { reportTurn } from './turn-report';
import { requireFullScope, textResult, toolError } from './tool-results';

/** Progress notifications at most this often, for hosts that extend their timeout on progress. */
const PROGRESS_EVERY_MS = 5_000;

export function registerSendMessage(server: McpServer, ctx: McpToolContext): void {
  server.registerTool(
    'send_message',
    {
      title: 'Send a message to an agent',
      description: [
        'Sends text to a durable livecontext agent as its next input and, unless wait is false, returns its answer.',
        `A wait lasts at most ${Math.round(ctx.waitCapMs / 1000)} s, and ends early when the agent needs a tool call approved;`,
        'the reply then gives the input_seq: approve with approve_tool_call if asked, and read the answer later with get_state {agent_id, input_seq}.',
        'Pass an idempotency_key to make a retried call safe: a message with a key the agent already took is not taken again.',
      ].join(' '),
      inputSchema: {
        agent_id: z.string().min(1).describe('The agent to send to (see list_agents).'),
        text: z.string().min(1).describe('The message.'),
        wait: z
          .boolean()
          .default(true)
          .describe(`Wait for the answer (default true; at most ${Math.round(ctx.waitCapMs / 1000)} s).`),
        idempotency_key: z
          .string()
          .min(1)
          .max(200)
          .optional()
          .describe("Your id for this message; a repeat with the same key returns the first one's input_seq."),
      },
      annotations: { readOnlyHint: false, destructiveHint: false, idempotentHint: false, openWorldHint: true },
    },
    async ({ agent_id, text, wait, idempotency_key }, extra) => {
      try {
        requireFullScope(ctx.scope, 'send_message');
        checkPlainInputKey(idempotency_key);
        const { inputSeq, duplicate } = await ctx.agents.send(agent_id, { text, ...(idempotency_key ? { idempotencyKey: idempotency_key } : {}) });
        const again = duplicate ? ` (a repeat of input #${inputSeq}, which the agent took before)` : '';
        if (!wait) {
          return textResult(`Input #${inputSeq} was accepted${again}. Call get_state with {agent_id: "${agent_id}", input_seq: ${inputSeq}} for the answer.`, {
            agent_id,
            input_seq: inputSeq,
            ...(duplicate ? { duplicate } : {}),
            status: 'accepted',
          });
        }
        const progressToken = extra._meta?.progressToken;
        let lastProgress = Number.NEGATIVE_INFINITY;
        const progress = await awaitTurn(ctx.agents, agent_id, inputSeq, {
          waitMs: ctx.waitCapMs,
          pollMs: ctx.pollMs,
          signal: extra.signal,
          onWorking: async (_state, elapsedMs) => {
            if (progressToken === undefined || elapsedMs - lastProgress < PROGRESS_EVERY_MS) return;
            lastProgress = elapsedMs;
            await extra.sendNotification({
              method: 'notifications/progress',
              params: { progressToken, progress: Math.round(elapsedMs / 1000), message: `agent ${agent_id} is working` },
            });
          },
        });
        const report = reportTurn(agent_id, inputSeq, progress);
        return textResult(report.text, { ...report.structured, ...(duplicate ? { duplicate } : {}) });
      } catch (err) {
        return toolError(err, agent_id, ctx.log);
      }
    },
  );
}
