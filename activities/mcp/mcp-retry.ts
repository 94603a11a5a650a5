/**
 * Retries of MCP tool calls, from the `mcpServers` configuration: `"retry": {...}` beside a server's
 * command or url for all its tools, and `"tools": {"<tool>": {"retry": {...}}}` for one tool (the
 * server's own tool name), which wins field by field. What failed is told by the error's class and
 * reason, never its text. By default a call is retried (3 attempts, 1 s then 2 s apart) when it never
 * reached the server (`unreachable`: safe for any tool); a tool the server marks `readOnlyHint` or
 * `idempotentHint` also after the connection was lost during the call (the server crashed, an HTTP
 * session ended), when it may have run. No answer in time (`timeout`) is retried only when `retryOn`
 * lists it: a call that took the whole timeout is likely to take it again. A server's JSON-RPC error
 * (`server_error`) or an `isError` result (`tool_error`) is its answer, also only retried when listed.
 */
import { z } from 'zod';
import { ToolTimeoutError, type ToolRetryPolicy, policyProblem } from '../tools/tool-retry';
import type { McpToolDef } from './server-connection';

/** Why an MCP call failed: never sent (`unreachable`), sent and cut off (`connection_lost`, `timeout`), or answered with an error. */
export type McpFailureReason = 'unreachable' | 'connection_lost' | 'timeout' | 'server_error' | 'tool_error' | 'other';

/** A failed MCP tool call; `reason` says what a retry policy needs to know. The message is already free of secrets. */
export class McpCallError extends Error {
  constructor(
    message: string,
    readonly reason: McpFailureReason,
  ) {
    super(message);
    this.name = new.target.name;
  }
  /** The kind a failed attempt is recorded with (tools/tool-retry.ts `attemptErrorKind`). */
  get attemptKind(): string {
    return `mcp_${this.reason}`;
  }
}

const RETRYABLE_REASONS = ['unreachable', 'connection_lost', 'timeout', 'server_error', 'tool_error'] as const;

/** A retry policy as written in the `mcpServers` file (`retryOn` names reasons instead of a function). */
export const McpRetryEntry = z
  .object({
    maxAttempts: z.number().optional(),
    initialIntervalMs: z.number().optional(),
    backoff: z.number().optional(),
    maxIntervalMs: z.number().optional(),
    retryOn: z.array(z.enum(RETRYABLE_REASONS)).optional(),
  })
  .strict()
  .superRefine((entry, ctx) => {
    const { retryOn: _reasons, ...fields } = entry;
    const problem = policyProblem(fields);
    if (problem) ctx.addIssue({ code: 'custom', message: problem });
  });
export type McpRetryEntry = z.infer<typeof McpRetryEntry>;

/** A server's retry settings: its own, and its tools' (by the server's tool name). */
export interface McpRetryConfig {
  retry?: McpRetryEntry;
  tools?: Record<string, { retry?: McpRetryEntry }>;
}

/** Reasons retried when the configuration names none: see the module comment. */
export function defaultRetryReasons(def: McpToolDef): McpFailureReason[] {
  const safe = def.annotations?.readOnlyHint === true || def.annotations?.idempotentHint === true;
  return safe ? ['unreachable', 'connection_lost'] : ['unreachable'];
}

/** The policy of one of a server's tools: the tool's fields over the server's over the defaults. */
export function mcpRetryPolicy(def: McpToolDef, config: McpRetryConfig): ToolRetryPolicy {
  const { retryOn: listed, ...fields } = { ...config.retry, ...config.tools?.[def.name]?.retry };
  const reasons = new Set<McpFailureReason>(listed ?? defaultRetryReasons(def));
  // The executor's own timeout of an attempt comes before the SDK's, as a ToolTimeoutError.
  const retryOn = (err: unknown) => (err instanceof McpCallError && reasons.has(err.reason)) || (err instanceof ToolTimeoutError && reasons.has('timeout'));
  return { ...fields, retryOn };
}
