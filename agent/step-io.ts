/**
 * What `doStep()` asks of the outside world, as plain JSON-safe data. In the workflow these become
 * activity calls; in unit tests they are plain functions.
 */
import type { Metadata, ModelInvocationDescriptor, TokenUsage, ToolCallRequest, ToolCallResult } from './entries';
import type { AgentRunState } from './run-state';
import type { AgentConfig, ModelParams } from './agent-config';
import type { ToolCatalog } from './tool-spec';
import type { RefusedAttachment } from './refused-attachments';

/**
 * A model call by reference: the callee renders the context itself from the agent's entries up to
 * `uptoSeq` (fetched by query and cached), so the transcript never enters an activity input.
 */
export interface ModelCallRequest {
  /** The history bound: render entries with `seq <= uptoSeq`. */
  uptoSeq: number;
  /** `provider:model`, already chosen for this phase. */
  model: string;
  params?: ModelParams;
  /** Tool names offered to the model; absent = all registered. */
  tools?: string[];
  /** PendingInput or PendingToolResults: routers may pick a model per phase. */
  phase: AgentRunState;
  /** The model's context window in tokens, when the agent sets one (else the worker's table). */
  contextWindow?: number;
  /** The digest of the MCP tool catalog the agent holds: the call answers with a catalog only if it changed. */
  catalogDigest?: string;
  /** The agent's sub-agent tools (`ask_<name>`), offered beside the worker's tools. */
  subAgentTools?: Array<{ name: string; description: string }>;
  /** Attachments a provider refused: rendered as notes, the images left out (see refused-attachments). */
  refusedAttachments?: RefusedAttachment[];
  /**
   * Policy `compact`: the share of the input budget over which the call answers with a CompactionNeeded
   * instead of calling the model; the context is then never trimmed. Absent: policy `trim` (as before).
   */
  compactAt?: number;
  /** This step compacted as often as it may: over the threshold, the model is called as it is. */
  compactionsDone?: boolean;
  /** How long the provider should keep the cached prompt prefix (Anthropic), when the agent chose. */
  cacheTtl?: '5m' | '1h';
}

/**
 * What a model call answers instead of a message when the context passed its compaction threshold: the
 * oldest context messages up to `throughSeq` (ending at a turn or tool call/result boundary) should be
 * summarised first.
 */
export interface CompactionNeeded {
  compactThrough: number;
  /** The rendered context's estimated tokens, and the input budget it was measured against. */
  estimatedInputTokens: number;
  inputBudget: number;
}

export function isCompactionNeeded(result: ModelCallResult | CompactionNeeded): result is CompactionNeeded {
  return typeof (result as CompactionNeeded).compactThrough === 'number';
}

/** A summary call by reference: the callee reads the entries itself, as a model call does. */
export interface CompactionRequest {
  /** The history bound: the entries the agent holds when it compacts. */
  uptoSeq: number;
  /** Summarise the newest summary before it plus the entries after it, up to this seq. */
  throughSeq: number;
  /** `provider:model` that writes the summary. */
  model: string;
  /** The agent's model's input budget in tokens, when known: the summary is asked to stay well within it. */
  inputBudget?: number;
  /** The model whose call asked for the compaction, and the agent's window: the entries are read as that call read them. */
  askedBy: string;
  contextWindow?: number;
}

/** A summary, ready for `AgentState.appendCompaction`. */
export interface CompactionResult {
  summary: string;
  invocation: ModelInvocationDescriptor;
  usage?: TokenUsage;
  metadata?: Metadata;
}

/** An assembled model message, ready for `AgentState.appendModelOutput`. */
export interface ModelCallResult {
  contents: string[];
  thinking?: string;
  thinkingSignature?: string;
  toolCalls: ToolCallRequest[];
  invocation: ModelInvocationDescriptor;
  usage?: TokenUsage;
  /** Recorded on the ModelOutputEntry (e.g. `estimated_input_tokens`, `context_dropped`). */
  metadata?: Metadata;
  /** The MCP tools offered, when they differ from the catalog the agent holds (see ToolCatalog). */
  toolCatalog?: ToolCatalog;
}

/** The agent's view of a failure it stays blocked on (seed 004: "on error stay in state"). */
export interface AgentError {
  code: string;
  message: string;
  /** The run state the agent was in when it failed. */
  runState: AgentRunState;
  at: string;
}

/** What a tool executor answers when the tool's policy wants a person to approve this call first. */
export interface ApprovalRequired {
  approvalRequired: true;
  reason: string;
}

/**
 * What a tool executor answers when an earlier attempt of the call started and never reported (its worker
 * died, it timed out) and the tool can neither reconcile nor safely run again: whether the effect happened
 * is unknown, so the agent waits for a person or a service to resolve the call (see effect-ledger.ts).
 */
export interface OutcomeUnknown {
  outcomeUnknown: true;
  reason: string;
}

export interface StepDeps {
  callModel(request: ModelCallRequest): Promise<ModelCallResult | CompactionNeeded>;
  /** The summary call of a compaction (an activity in workflows). Absent: a compaction blocks on an error. */
  compact?(request: CompactionRequest): Promise<CompactionResult>;
  /**
   * Runs a tool outside the workflow. Should never throw (failures are Failed results); if it does,
   * doStep records a Failed result. `approved` skips the tool's own approval policy; `offered: false`
   * says the model named a tool it was not offered (so no worker need be waited for).
   */
  executeTool(call: ToolCallRequest, options?: { approved?: boolean; offered?: boolean }): Promise<ToolCallResult | ApprovalRequired | OutcomeUnknown>;
  /**
   * A durable timer (Temporal `sleep` in workflows), for the sleep/wait_until tools. Resolving to
   * `false` means it was interrupted (the workflow is moving to a new run, stopping or resetting): the
   * call stays pending and its timer is kept in the agent's state, to resume where it was.
   */
  sleep?(ms: number): Promise<void | boolean>;
  /**
   * Whether this run takes up behaviour introduced by `change` (Temporal's `patched(change)` in the
   * workflow): false when replaying a history recorded before it. Absent = always (unit tests).
   */
  since?(change: string): boolean;
  /**
   * Delegation to sub-agents (child workflows in the agent workflow). `start` starts a child with its
   * task as first input and returns its agent id; `wait` resolves true once its result was recorded on
   * the agent, false when interrupted (the workflow is moving to a new run, stopping or resetting: the
   * call stays pending and the child keeps working). Absent: sub-agent calls fail.
   */
  delegate?: {
    start(request: {
      toolCallId: string;
      profile: string;
      index: number;
      batchSeq: number;
      config: AgentConfig;
      systemInstruction?: string;
      task: string;
    }): Promise<string>;
    wait(toolCallId: string): Promise<boolean>;
  };
  /** Category-tagged debug log (History, StateMachine, Provider, Tools). */
  log?(category: string, message: string, attributes?: Record<string, unknown>): void;
}

export type StepOutcome = 'ProgressMade' | 'BlockedOnInput' | 'BlockedOnError' | 'BlockedOnApproval';
