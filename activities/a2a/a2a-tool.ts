/**
 * A remote A2A agent as a tool: the model sends it a message (and, to answer a task that asked for
 * input, that task's id) and gets its answer (task-result.ts). The call's idempotency key is the A2A
 * message id, the same on every attempt, so a remote that dedups by message id (livecontext's gateway
 * does) starts one task however often the message is sent. The remote task's id rides in the heartbeat
 * details from the moment it is known; an attempt after the worker died (`reconcile`) follows that task
 * with GetTask instead of sending again, and one whose predecessor died before the id was known sends the
 * same message again (the same message id: the same task). The runtime heartbeats while the task is
 * followed, so a remote task may take minutes (up to the tool's timeout). An interrupt cancels the remote
 * task; a worker shutting down does not.
 */
import { randomUUID } from 'node:crypto';
import { SendMessageRequest, type Task } from '@a2a-js/sdk';
import { Context } from '@temporalio/activity';
import { A2AError } from '@a2a-js/sdk/errors';
import { z } from 'zod';
import { type Tool, type ToolContext, type ToolOutput, ToolRetryableError } from '../tools/define-tool';
import type { A2aAgentConnection } from './a2a-connection';
import { a2aToolDescription } from './card-description';
import { followTask, sendAndFollow } from './follow-task';
import { A2aTaskError, a2aResult, stateName } from './task-result';

/** The heartbeat-details key that holds the remote task a call follows. */
export const A2A_TASK_DETAILS_KEY = 'a2a_task_id';
/** How long one call may follow its remote task unless the configuration says otherwise. */
export const A2A_DEFAULT_TIMEOUT_MS = 30 * 60 * 1000;

export const A2aCallArgs = z.object({
  message: z.string().min(1).describe('What to ask or tell the agent, in plain words: it knows nothing of this conversation but what you write.'),
  taskId: z.string().min(1).optional().describe("Only to answer a task of this agent that asked for input: that task's id, from its earlier result."),
  contextId: z.string().min(1).optional().describe('To go on with an earlier exchange with this agent: its context id, from an earlier result.'),
});
export type A2aCallArgs = z.infer<typeof A2aCallArgs>;

/** What an A2A tool's heartbeats carry while it follows its task (shown as its partial output). */
export interface A2aToolProgress {
  tool_call_id: string;
  tool: string;
  a2a_task_id: string;
  a2a_context_id?: string;
  message: string;
}

/** The task id a previous attempt recorded in its heartbeat details, if any. */
export function a2aTaskIdIn(details: unknown): string | undefined {
  const id = (details as Record<string, unknown> | null | undefined)?.[A2A_TASK_DETAILS_KEY];
  return typeof id === 'string' && id.length > 0 ? id : undefined;
}

/** The A2A message of a call: its id the call's idempotency key. */
export function a2aRequest(args: A2aCallArgs, messageId: string): SendMessageRequest {
  return SendMessageRequest.fromJSON({
    message: {
      messageId,
      role: 'ROLE_USER',
      parts: [{ text: args.message }],
      ...(args.taskId ? { taskId: args.taskId } : {}),
      ...(args.contextId ? { contextId: args.contextId } : {}),
    },
    configuration: { returnImmediately: true },
  });
}

/**
 * Whether the call's cancellation is one the remote task should end with: an interrupt (Temporal's cancel)
 * or the tool's own timeout (no Temporal cancellation) — not a worker shutting down, a heartbeat timeout
 * or a pause, after which another attempt follows the same task.
 */
function cancelsRemote(): () => boolean {
  let activity: Context | undefined;
  try {
    activity = Context.current();
  } catch {
    activity = undefined; // called outside an activity (tests): every abort is the caller's
  }
  return () => {
    const details = activity?.cancellationDetails;
    return !details || details.cancelRequested;
  };
}

export function a2aTool(connection: A2aAgentConnection): Tool<typeof A2aCallArgs> {
  const name = connection.name;
  const beat = (ctx: ToolContext) => (task: Task) => {
    const details: A2aToolProgress = {
      tool_call_id: ctx.toolCallId,
      tool: name,
      [A2A_TASK_DETAILS_KEY]: task.id,
      ...(task.contextId ? { a2a_context_id: task.contextId } : {}),
      message: connection.redact(`remote task ${stateName(task.status?.state)}`),
    };
    ctx.heartbeat(details);
  };
  /** Runs one exchange with the remote; its errors in words the model can act on, without the token. */
  const exchange = async (ctx: ToolContext, run: (client: Awaited<ReturnType<A2aAgentConnection['connect']>>) => Promise<Parameters<typeof a2aResult>[1]>) => {
    let answer: Parameters<typeof a2aResult>[1];
    try {
      answer = await run(await connection.connect().catch((err: Error) => Promise.reject(new ToolRetryableError(err.message))));
    } catch (err) {
      if (err instanceof ToolRetryableError || ctx.signal.aborted) throw err;
      const message = connection.redact(`the A2A agent "${name}" could not be reached: ${(err as Error)?.message ?? String(err)}`);
      // An A2A error is the remote's answer; anything else (the network) may pass, and sending again is safe.
      throw err instanceof A2AError ? new Error(message) : new ToolRetryableError(message);
    }
    try {
      const out = a2aResult(name, answer);
      return typeof out === 'string' ? out : { ...out, text: connection.redact(out.text) };
    } catch (err) {
      if (err instanceof A2aTaskError) throw new A2aTaskError(connection.redact(err.message), err.state);
      throw err;
    }
  };
  const follow = (ctx: ToolContext, taskId: string) =>
    exchange(ctx, (client) => followTask(client, taskId, { signal: ctx.signal, onTask: beat(ctx), cancelsRemote: cancelsRemote() }));
  return {
    name,
    get description() {
      return connection.redact(a2aToolDescription(name, connection.card, connection.config.description));
    },
    parameters: A2aCallArgs,
    timeoutMs: connection.config.timeoutMs ?? A2A_DEFAULT_TIMEOUT_MS,
    retry: { maxAttempts: 3 },
    async execute(args, ctx): Promise<ToolOutput> {
      const known = a2aTaskIdIn(ctx.previousDetails);
      if (known) return follow(ctx, known);
      const messageId = ctx.idempotencyKey || randomUUID();
      return exchange(ctx, (client) =>
        sendAndFollow(client, a2aRequest(args, messageId), { signal: ctx.signal, onTask: beat(ctx), cancelsRemote: cancelsRemote() }),
      );
    },
    // The worker died mid-call: follow the task it started; without one on record, send again (same message id).
    async reconcile(_args, ctx) {
      const known = a2aTaskIdIn(ctx.previousDetails);
      if (!known) return { notDone: true as const };
      return { done: await follow(ctx, known) };
    },
  };
}
