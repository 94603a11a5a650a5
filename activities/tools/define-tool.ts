/**
 * defineTool: one zod schema is both the JSON schema the model sees and the validation of what it sends.
 */
import type { ElicitFn } from './elicit-through-agent';
import type { z } from 'zod';
import { type JsonValue, type ToolSpec, zodToolSpec } from '../../agent/index';
import { type ToolRetryPolicy, policyProblem } from './tool-retry';
import type { ReconcileAnswer } from './unknown-outcome';

export { ToolRetryableError, ToolTimeoutError, type ToolRetryPolicy } from './tool-retry';

export interface ToolContext {
  /** The agent's workflow id. */
  agentId: string;
  toolCallId: string;
  /** `workflowId/toolCallId`: the same on every retry of this call, even after a crash. */
  idempotencyKey: string;
  /** This agent's workspace folder; file tools stay inside it. */
  workspaceRoot: string;
  /** Aborted when the activity is cancelled or times out. */
  signal: AbortSignal;
  /** Record progress (and prove liveness) for long tools; the runtime also heartbeats for you. */
  heartbeat(details?: unknown): void;
  /**
   * The heartbeat details the attempt before this one left (its last `heartbeat`, beside the runtime's
   * own keys), for a tool that follows something durable (an MCP task) and resumes it in `reconcile`.
   */
  previousDetails?: unknown;
  /**
   * Asks the agent's people a question during the call (an MCP server's elicitation): opened as one of
   * the agent's waits, answered through any door; resolves with the answer (never answered for them).
   */
  elicit?: ElicitFn;
}

/** A tool may return plain text, or text plus small metadata (snake_case keys). */
export type ToolOutput = string | { text: string; metadata?: Record<string, JsonValue> };

export interface Tool<S extends z.ZodType = z.ZodType> {
  name: string;
  description: string;
  parameters: S;
  execute(args: z.infer<S>, ctx: ToolContext): Promise<ToolOutput> | ToolOutput;
  /** A run that takes longer fails with a timeout result (default DEFAULT_TOOL_TIMEOUT_MS, at most MAX_TOOL_TIMEOUT_MS). */
  timeoutMs?: number;
  /**
   * Human in the loop: `true` = every call waits for a person's approval; a function decides per call
   * from the validated arguments (return a string to say why approval is needed).
   */
  needsApproval?: boolean | ((args: z.infer<S>) => boolean | string);
  /**
   * The JSON schema the model is offered, for a tool whose schema is not ours to write (an MCP server's
   * `inputSchema`); `parameters` then only checks that the arguments are an object, and the tool's
   * owner validates them. Tools written here leave it out: their zod schema gives both.
   */
  jsonSchema?: Record<string, unknown>;
  /**
   * Runs again after a passing fault (see tool-retry.ts): the body throws `ToolRetryableError`, or an
   * error `retryOn` accepts. Absent: DEFAULT_TOOL_RETRY (3 attempts, only on ToolRetryableError);
   * `{ maxAttempts: 1 }`: never. Each attempt has the tool's whole `timeoutMs`.
   */
  retry?: ToolRetryPolicy;
  /**
   * Running the body twice does no harm (reads, or writes that set a value): after an attempt whose
   * outcome is unknown (its worker died or it timed out after it started), the call simply runs again.
   */
  idempotent?: boolean;
  /**
   * Asked, instead of running the body again, when an earlier attempt of this call started and never
   * reported: did its effect happen? Ask the outside world with `ctx.idempotencyKey`. `{ done }` records
   * that result (metadata `reconciled: true`) without running the body; `{ notDone: true }` runs the body.
   * A tool with neither `reconcile` nor `idempotent` is not run again: the agent waits for a person or a
   * service to resolve the call (`livecontext resolve`).
   */
  reconcile?(args: z.infer<S>, ctx: ToolContext): Promise<ReconcileAnswer> | ReconcileAnswer;
}

export const DEFAULT_TOOL_TIMEOUT_MS = 5 * 60 * 1000;
/** Below the tool activity's start-to-close timeout, so a slow tool fails as a result, not as an activity. */
export const MAX_TOOL_TIMEOUT_MS = 55 * 60 * 1000;

export function defineTool<S extends z.ZodType>(tool: Tool<S>): Tool<S> {
  if (!/^[a-zA-Z0-9_-]{1,64}$/.test(tool.name)) {
    throw new Error(`Tool name "${tool.name}" must match ^[a-zA-Z0-9_-]{1,64}$ (the providers' rule).`);
  }
  const problem = tool.retry && policyProblem(tool.retry);
  if (problem) throw new Error(`Tool "${tool.name}": retry.${problem}.`);
  return tool;
}

export function toolSpec(tool: Tool): ToolSpec {
  if (tool.jsonSchema) return { name: tool.name, description: tool.description, parameters: tool.jsonSchema };
  return zodToolSpec(tool.name, tool.description, tool.parameters);
}
