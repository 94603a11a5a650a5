/**
 * An MCP server's tool as a livecontext Tool: offered with the server's own JSON schema, run by a call on
 * the pooled connection with the tool's timeout, cancellation (the SDK sends notifications/cancelled when
 * the signal aborts) and progress notifications as heartbeats. `destructiveHint: true` (and not
 * `readOnlyHint`) asks a person first. `isError` and a failed call throw, which the executor turns into
 * a Failed result the model reads. The server's and the worker's secrets are cut out of the result
 * before it is read (also one split between text blocks, or escaped inside structured content).
 * Every `tools/call` carries the call's idempotency key in its `_meta` (MCP_IDEMPOTENCY_META_KEY), the
 * same on every attempt, so a server that does something may do it once per key.
 * A tool the server lets be called as a task (`execution.taskSupport`) is called as one and followed
 * (task-call.ts); the task id rides in the heartbeat details, and an attempt after a worker died follows
 * that task in `reconcile` rather than calling the tool again.
 * A server's question to the user during the call (elicitation) becomes one of the agent's waits (call-asker.ts).
 */
import { z } from 'zod';
import { DEFAULT_TOOL_TIMEOUT_MS, type Tool, type ToolContext, type ToolOutput } from '../tools/define-tool';
import { type CallAsker, callAsker } from './call-asker';
import { MCP_IDEMPOTENCY_META_KEY } from './idempotency-meta';
import { McpCallError, mcpRetryPolicy } from './mcp-retry';
import { McpResultError, mcpResultText, redactMcpResult } from './result-text';
import type { McpServerConnection, McpToolDef } from './server-connection';
import { MCP_TASK_DETAILS_KEY, callToolAsTask, followTask, taskIdIn } from './task-call';

/** What an MCP tool's heartbeats carry while it reports progress (shown as its partial output). */
export interface McpToolProgress {
  tool_call_id: string;
  tool: string;
  progress: number;
  total?: number;
  message?: string;
  /** The MCP task the call follows, for a tool called as a task (task-call.ts). */
  mcp_task_id?: string;
}

/** Any JSON object: the server checks its own arguments, against the schema the model was shown. */
const AnyArguments = z.record(z.string(), z.unknown());

export function needsApprovalFor(def: McpToolDef): boolean {
  return def.annotations?.destructiveHint === true && def.annotations?.readOnlyHint !== true;
}

/** Whether the server lets this tool be called as a task (its capability is checked at call time too). */
export function offersTasks(def: McpToolDef): boolean {
  const support = (def as { execution?: { taskSupport?: string } }).execution?.taskSupport;
  return support === 'required' || support === 'optional';
}

/** The server's input schema as a tool spec's parameters: an object schema, without `$schema`. */
export function specParameters(def: McpToolDef): Record<string, unknown> {
  const { $schema: _drop, ...schema } = (def.inputSchema ?? {}) as Record<string, unknown>;
  return { ...schema, type: 'object', properties: schema.properties ?? {} };
}

export function mcpTool(name: string, def: McpToolDef, connection: McpServerConnection): Tool<typeof AnyArguments> {
  const server = connection.name;
  const title = def.title ?? def.annotations?.title;
  const described = def.description?.trim() || title || `The ${def.name} tool`;
  /** The tool's text, or a McpCallError for a tool error or an answer that is no tool result. */
  const readResult = (result: unknown, asker?: CallAsker): ToolOutput => {
    let read: ReturnType<typeof mcpResultText>;
    try {
      read = mcpResultText(redactMcpResult(result, connection.secrets()));
    } catch (err) {
      if (!(err instanceof McpResultError)) throw err;
      throw new McpCallError(connection.redact(`the MCP server "${server}" answered, but not with an MCP tool result: ${err.message}`), 'other');
    }
    const { text, isError } = read;
    if (isError) throw new McpCallError(connection.redact(text), 'tool_error');
    return { text: connection.redact(text), metadata: { mcp_server: server, ...(asker?.answered.length ? { elicitations: asker.answered } : {}) } };
  };
  /** Heartbeats the task the call follows (and its status message, as progress to show). */
  const following = (ctx: ToolContext) => (taskId: string, message?: string) => {
    const details: McpToolProgress = { tool_call_id: ctx.toolCallId, tool: name, progress: 0, [MCP_TASK_DETAILS_KEY]: taskId };
    if (message) details.message = connection.redact(message);
    ctx.heartbeat(details);
  };
  return {
    name,
    description: connection.redact(`${described} (MCP server "${server}", tool "${def.name}")`),
    parameters: AnyArguments,
    jsonSchema: specParameters(def),
    timeoutMs: connection.config.timeoutMs ?? DEFAULT_TOOL_TIMEOUT_MS,
    ...(needsApprovalFor(def) ? { needsApproval: () => `${server} marks ${def.name} as destructive` } : {}),
    retry: mcpRetryPolicy(def, connection.config),
    // The server says a second call does no harm: after an unknown outcome it runs again rather than waiting.
    ...(def.annotations?.readOnlyHint === true || def.annotations?.idempotentHint === true ? { idempotent: true } : {}),
    async execute(args, ctx): Promise<ToolOutput> {
      const meta = { [MCP_IDEMPOTENCY_META_KEY]: ctx.idempotencyKey };
      if (offersTasks(def) && (await connection.takesToolTasks())) {
        const taskBeat = following(ctx);
        const asker = callAsker(ctx, name, connection);
        const result = await connection.withClient(
          ctx.signal,
          (client) =>
            callToolAsTask(client, def.name, args, {
              signal: ctx.signal,
              meta,
              onTask: (id) => {
                if (asker) asker.taskId = id;
                taskBeat(id);
              },
              onStatus: (task) => taskBeat(task.taskId, task.statusMessage),
            }),
          asker,
        );
        return readResult(result, asker);
      }
      const asker = callAsker(ctx, name, connection);
      const result = await connection.callTool(def.name, args, {
        signal: ctx.signal,
        timeoutMs: connection.config.timeoutMs ?? DEFAULT_TOOL_TIMEOUT_MS,
        meta,
        ...(asker ? { asker } : {}),
        onProgress: (p) => {
          const details: McpToolProgress = { tool_call_id: ctx.toolCallId, tool: name, progress: p.progress };
          if (p.total !== undefined) details.total = p.total;
          if (p.message) details.message = connection.redact(p.message);
          ctx.heartbeat(details);
        },
      });
      return readResult(result, asker);
    },
    // A worker died while the call ran: the task it made goes on at the server; follow it to its result.
    ...(offersTasks(def)
      ? {
          async reconcile(_args: unknown, ctx: ToolContext) {
            const taskId = taskIdIn(ctx.previousDetails);
            if (!taskId) {
              if (def.annotations?.readOnlyHint === true || def.annotations?.idempotentHint === true) return { notDone: true as const };
              throw new Error(`no MCP task of "${def.name}" was recorded before its worker stopped, so whether the call reached "${server}" is unknown`);
            }
            const taskBeat = following(ctx);
            taskBeat(taskId); // kept for the attempt after this one, should this worker die too
            const asker = callAsker(ctx, name, connection, taskId);
            const result = await connection.withClient(
              ctx.signal,
              (client) => followTask(client, taskId, { signal: ctx.signal, onStatus: (task) => taskBeat(task.taskId, task.statusMessage) }),
              asker,
            );
            return { done: readResult(result, asker) };
          },
        }
      : {}),
  };
}
