/**
 * The contract of a kind of tool call — widget tools, durable timers, `ask_user`, sub-agents, and the
 * tools that run as activities — so that the tool step (agent/tool-step.ts) is one generic loop and a new
 * kind is one file plus one line in ./registry.ts. A kind says how it recognises a call, which rule
 * allows the call, the workflow change (a `patched()` id) that brought it, and what it does. The agent's
 * approval policy and a person's decision apply to every kind alike: the loop checks them first.
 *
 * @example
 * export const echoKind: ToolKind<true> = {
 *   name: 'echo',
 *   allowedBy: 'allowance',
 *   recognise: ({ call }) => (call.toolName === 'echo' ? true : undefined),
 *   run: async ({ call }) => ({ ...callBase(call), status: 'Success', result: call.rawArguments, elapsedMs: 0 }),
 * };
 */
import type { z } from 'zod';
import type { AgentConfig } from '../agent-config';
import { checkMetadata } from '../agent-state';
import type { ToolCallRequest, ToolCallResult } from '../entries';
import type { ApprovalState, TimerState } from '../snapshot';
import type { ApprovalRequired, OutcomeUnknown, StepDeps } from '../step-io';
import type { EffectRecord } from '../effect-ledger';
import type { SubAgentCall } from '../sub-agents';
import type { Widget } from '../widgets/index';

/** What the tool step works on: the agent's state around the current batch, as the Agent lends it. */
export interface ToolStepHost {
  config: AgentConfig;
  widgets: readonly Widget[];
  approvals: Record<string, ApprovalState>;
  /** Running sleep/wait_until timers by toolCallId: carried across runs, so a wait resumes, not restarts. */
  timers: Record<string, TimerState>;
  /** Sub-agent calls in flight or answered, by toolCallId: carried across runs, like timers. */
  subAgentCalls: Record<string, SubAgentCall>;
  /** The effect ledger of the batch's activity calls, by toolCallId (see effect-ledger.ts). */
  effects: Record<string, EffectRecord>;
  /** The sequence number of the model output whose calls these are. */
  batchSeq: number;
  clock(): number;
  /** Calls of the last output without a result yet, in call order. */
  pendingCalls(): ToolCallRequest[];
  /** Whether the model was offered this tool when it called it (false for a made-up name). */
  offered(toolName: string): boolean;
  addResult(result: ToolCallResult): void;
}

/** One call as a kind sees it. */
export interface ToolCallContext {
  call: ToolCallRequest;
  host: ToolStepHost;
  deps: StepDeps;
  /** A person approved the call, or the agent's policy says it never needs approval. */
  approved: boolean;
}

/** The workflow must end the step (new run, stop, reset) before the call has a result: it resumes in the next run. */
export const INTERRUPTED = Symbol('interrupted');

/** How a call ends for now: its result, a wait for a person's approval or resolution, or an interruption. */
export type ToolOutcome = ToolCallResult | ApprovalRequired | OutcomeUnknown | typeof INTERRUPTED;

/** A tool a kind offers the model whatever the agent's configuration (widget, timer and ask_user tools). */
export interface OfferedTool {
  name: string;
  description: string;
  /** The one schema for the model's JSON schema and for validation. */
  parameters: z.ZodType;
}

export interface ToolKind<Match = unknown> {
  readonly name: string;
  /**
   * Which rule allows a call: `allowance` — the agent's tool allowance (`config.tools`), checked by the
   * tool step before the kind is asked; `own` — the kind's own: a sub-agent is allowed by the
   * configuration that names it, an activity tool by the executor (which names the worker's tools when
   * it refuses one).
   */
  readonly allowedBy: 'allowance' | 'own';
  /** The tools this kind offers the model, in the order they are offered. */
  readonly tools?: readonly OfferedTool[];
  /** What the kind needs to run the call (a widget, a profile…), or undefined when the call is not its own. Asks no patch. */
  recognise(at: ToolCallContext): Match | undefined;
  /**
   * The change (a `patched()` id, asked through `deps.since`) that brought this kind to the call, if any:
   * a history recorded before it ran the call as the next kind would. Asked only for a call recognised.
   */
  change?(match: Match): string | undefined;
  /** Runs the call. Never throws for the tool's own failure (a Failed result); InfrastructureError passes. */
  run(at: ToolCallContext, match: Match): Promise<ToolOutcome>;
}

/** The two fields every result of `call` starts with. */
export function callBase(call: ToolCallRequest): Pick<ToolCallResult, 'toolCallId' | 'toolName'> {
  return { toolCallId: call.toolCallId, toolName: call.toolName };
}

/** Attaches metadata if it is valid (snake_case, <= 2 KB); otherwise notes why it was left out. */
export function withMetadata(result: ToolCallResult, metadata: ToolCallResult['metadata']): ToolCallResult {
  const { metadata: _dropped, ...rest } = result;
  if (!metadata) return rest;
  try {
    checkMetadata(metadata);
    return { ...rest, metadata };
  } catch (err) {
    return { ...rest, metadata: { metadata_dropped: (err as Error).message.slice(0, 300) } };
  }
}

/** The host's clock as an ISO date-time (for what the agent's state records). */
export function isoNow(host: ToolStepHost): string {
  return new Date(host.clock()).toISOString();
}
