/**
 * An MCP server's tool as a livecontext Tool: offered with the server's own JSON schema, run by a call on
 * the pooled connection with the tool's timeout, cancellation (the SDK sends notifications/cancelled when
 * the signal aborts) and progress notifications as heartbeats. `destructiveHint: true` (and not
 * `readOnlyHint`) asks a person first. `isError` and a failed call throw, which the executor turns into
 * a Failed result the model reads. The server's and the worker's secrets are cut out of the result
 * before it is read (also one split between text blocks, or escaped inside structured content).
 * Every `tools/call` carries the call's idempotency key in its `_meta` (MCP_IDEMPOTENCY_META_KEY), the
 * same on every attempt, so a server that does something may do it once per key.
 */
import { z } from 'zod';
import { DEFAULT_TOOL_TIMEOUT_MS, type Tool, type ToolOutput } from '../tools/define-tool';
import { MCP_IDEMPOTENCY_META_KEY } from './idempotency-meta';
import { McpCallError, mcpRetryPolicy } from './mcp-retry';
import { McpResultError, mcpResultText, redactMcpResult } from './result-text';
import type { McpServerConnection, McpToolDef } from './server-connection';

/** What an MCP tool's heartbeats carry while it reports progress (shown as its partial output). */
export interface McpToolProgress {
  tool_call_id: string;
  tool: string;
  progress: number;
  total?: number;
  message?: string;
}

/** Any JSON object: the server checks its own arguments, against the schema the model was shown. */
const AnyArguments = z.record(z.string(), z.unknown());

export function needsApprovalFor(def: McpToolDef): boolean {
  return def.annotations?.destructiveHint === true && def.annotations?.readOnlyHint !== true;
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
      const result = await connection.callTool(def.name, args, {
        signal: ctx.signal,
        timeoutMs: connection.config.timeoutMs ?? DEFAULT_TOOL_TIMEOUT_MS,
        meta: { [MCP_IDEMPOTENCY_META_KEY]: ctx.idempotencyKey },
        onProgress: (p) => {
          const details: McpToolProgress = { tool_call_id: ctx.toolCallId, tool: name, progress: p.progress };
          if (p.total !== undefined) details.total = p.total;
          if (p.message) details.message = connection.redact(p.message);
          ctx.heartbeat(details);
        },
      });
      let read: ReturnType<typeof mcpResultText>;
      try {
        read = mcpResultText(redactMcpResult(result, connection.secrets()));
      } catch (err) {
        if (!(err instanceof McpResultError)) throw err;
        throw new McpCallError(connection.redact(`the MCP server "${server}" answered, but not with an MCP tool result: ${err.message}`), 'other');
      }
      const { text, isError } = read;
      if (isError) throw new McpCallError(connection.redact(text), 'tool_error');
      return { text: connection.redact(text), metadata: { mcp_server: server } };
    },
  };
}
