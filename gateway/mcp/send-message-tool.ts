/**
 * `send_message`: input to an agent (AgentClient.send), and by default its answer. The wait is capped
 * (see DEFAULT_WAIT_CAP_MS) and ends early when the agent needs a person (an approval), so the request
 * is never held open indefinitely; the reply then names the inputSeq and how to get the answer later.
 * A client that declared form elicitation is asked instead, within the same cap (elicit-wait.ts): its
 * answer answers the wait (door `mcp`) and the call goes on following the turn.
 * Called as an MCP task (`params.task`), it answers at once with a task that is the agent's turn
 * (TurnTaskStore): tasks/get, tasks/result and tasks/cancel follow the turn, through any gateway.
 */
import { type OpenWait, checkPlainInputKey } from '../../agent/index';
import type { CreateTaskRequestHandlerExtra } from '@modelcontextprotocol/sdk/experimental/tasks/interfaces.js';
import type { CreateTaskResult } from '@modelcontextprotocol/sdk/experimental/tasks/types.js';
import type { McpServer, RegisteredTool } from '@modelcontextprotocol/sdk/server/mcp.js';
import type { RequestHandlerExtra } from '@modelcontextprotocol/sdk/shared/protocol.js';
import type { CallToolResult, ServerNotification, ServerRequest } from '@modelcontextprotocol/sdk/types.js';
import { z } from 'zod';
import { type TurnProgress, awaitTurn } from './await-turn';
import { elicitWait } from './elicit-wait';
import type { McpToolContext } from './tool-context';
import { reportTurn } from './turn-report';
import { ToolRefusal, errorResult, requireFullScope, textResult, toolError } from './tool-results';
import type { TurnTaskContext } from './turn-task-store';

/** Progress notifications at most this often, for hosts that extend their timeout on progress. */
const PROGRESS_EVERY_MS = 5_000;

/** send_message's arguments. */
function sendMessageShape(ctx: McpToolContext) {
  return {
    agent_id: z.string().min(1).describe('The agent to send to (see list_agents).'),
    text: z.string().min(1).describe('The message.'),
    wait: z
      .boolean()
      .default(true)
      .describe(`Wait for the answer (default true; at most ${Math.round(ctx.waitCapMs / 1000)} s; not used when called as a task).`),
    idempotency_key: z.string().min(1).max(200).optional().describe("Your id for this message; a repeat with the same key returns the first one's input_seq."),
  };
}

type SendMessageArgs = z.output<z.ZodObject<ReturnType<typeof sendMessageShape>>>;

/**
 * Registers send_message as a tool that may be called as a task. Returns the tool and what answers it
 * when called without a task (agents-mcp-server routes such calls there: the SDK would otherwise poll the
 * task to its end, without the capped wait).
 */
export function registerSendMessage(
  server: McpServer,
  ctx: McpToolContext,
): { tool: RegisteredTool; plainCall: (args: unknown, extra: RequestHandlerExtra<ServerRequest, ServerNotification>) => Promise<CallToolResult> } {
  const shape = sendMessageShape(ctx);
  const tool = server.experimental.tasks.registerToolTask(
    'send_message',
    {
      title: 'Send a message to an agent',
      description: [
        'Sends text to a durable livecontext agent as its next input and, unless wait is false, returns its answer.',
        `A wait lasts at most ${Math.round(ctx.waitCapMs / 1000)} s, and ends early when the agent needs a tool call approved;`,
        'the reply then gives the input_seq: approve with approve_tool_call if asked, and read the answer later with get_state {agent_id, input_seq}.',
        "A host that declared form elicitation is asked to approve the call (or answer the agent's question) instead, and the wait goes on.",
        'Pass an idempotency_key to make a retried call safe: a message with a key the agent already took is not taken again.',
        "Called as an MCP task, it returns at once a task that is the agent's turn: tasks/result gives the answer, tasks/cancel interrupts the turn, across gateway restarts.",
      ].join(' '),
      inputSchema: shape,
      execution: { taskSupport: 'optional' },
      annotations: { readOnlyHint: false, destructiveHint: false, idempotentHint: false, openWorldHint: true },
    },
    {
      createTask: (args, extra) => createTurnTask(ctx, args, extra),
      getTask: (_args, extra) => extra.taskStore.getTask(extra.taskId),
      getTaskResult: async (_args, extra) => (await extra.taskStore.getTaskResult(extra.taskId)) as CallToolResult,
    },
  );
  const parse = z.object(shape);
  const plainCall = async (args: unknown, extra: RequestHandlerExtra<ServerRequest, ServerNotification>) => {
    const parsed = parse.safeParse(args ?? {});
    if (!parsed.success) {
      const why = parsed.error.issues.map((i) => `${i.path.join('.') || '(arguments)'}: ${i.message}`).join('; ');
      return errorResult(`Input validation error: Invalid arguments for tool send_message: ${why}`);
    }
    return sendAndWait(ctx, parsed.data, extra);
  };
  return { tool, plainCall };
}

/** send_message as a task: the input is sent, and the task is its turn. */
async function createTurnTask(ctx: McpToolContext, args: SendMessageArgs, extra: CreateTaskRequestHandlerExtra): Promise<CreateTaskResult> {
  let inputSeq: number;
  try {
    requireFullScope(ctx.scope, 'send_message');
    checkPlainInputKey(args.idempotency_key);
    ({ inputSeq } = await ctx.agents.send(args.agent_id, { text: args.text, ...(args.idempotency_key ? { idempotencyKey: args.idempotency_key } : {}) }));
  } catch (err) {
    // The SDK answers a throw from createTask with a tool error of its message: the same words as a plain call's.
    const refused = toolError(err, args.agent_id, ctx.log).content[0];
    throw new ToolRefusal(refused?.type === 'text' ? refused.text : String(err));
  }
  const context: TurnTaskContext = { agentId: args.agent_id, inputSeq };
  return { task: await extra.taskStore.createTask({ context: { ...context } }) };
}

/** The turn's wait the client may be asked about (elicitation): its first approval, or the question it ended with. */
function waitToAsk(ctx: McpToolContext, seq: number, progress: TurnProgress, asked: ReadonlySet<string>): OpenWait | undefined {
  if (!ctx.client?.elicitation) return undefined;
  // An approval of an earlier turn that this input waits behind is not this turn's to ask about.
  if (progress.status === 'blocked' && progress.state.blockedOn === 'approval' && progress.state.consumedInputSeq === seq)
    return (progress.state.waits ?? []).find((w) => w.kind === 'approval' && !asked.has(w.waitId));
  if (progress.status === 'finished' && progress.outcome.status === 'asked' && progress.outcome.waitId && !asked.has(progress.outcome.waitId))
    return { waitId: progress.outcome.waitId, kind: 'question', openedAt: '', question: progress.outcome.question };
  return undefined;
}

async function sendAndWait(
  ctx: McpToolContext,
  { agent_id, text, wait, idempotency_key }: SendMessageArgs,
  extra: RequestHandlerExtra<ServerRequest, ServerNotification>,
): Promise<CallToolResult> {
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
    const started = Date.now();
    const follow = (seq: number) =>
      awaitTurn(ctx.agents, agent_id, seq, {
        waitMs: Math.max(0, ctx.waitCapMs - (Date.now() - started)),
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
    let seq = inputSeq;
    let progress = await follow(seq);
    // A client that takes elicitation is asked about each wait the turn reaches, within the same cap.
    const notes: string[] = [];
    const asked = new Set<string>();
    for (let wait = waitToAsk(ctx, seq, progress, asked); wait; wait = waitToAsk(ctx, seq, progress, asked)) {
      asked.add(wait.waitId);
      const left = ctx.waitCapMs - (Date.now() - started);
      if (left <= 0 || extra.signal.aborted) break;
      const elicited = await elicitWait(ctx, agent_id, wait, extra, left);
      if (elicited.note) notes.push(elicited.note);
      if (elicited.status === 'open') break;
      if (elicited.status === 'answered' && elicited.inputSeq !== undefined) seq = elicited.inputSeq;
      progress = await follow(seq);
    }
    const report = reportTurn(agent_id, seq, progress);
    return textResult([...notes, report.text].join('\n'), {
      ...report.structured,
      ...(seq !== inputSeq ? { sent_input_seq: inputSeq } : {}),
      ...(duplicate ? { duplicate } : {}),
    });
  } catch (err) {
    return toolError(err, agent_id, ctx.log);
  }
}
