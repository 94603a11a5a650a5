/**
 * What the `state` query answers: the agent's status as its own rules see it — what it is blocked on,
 * what waits for approval, its widgets and its usage totals. Derived from the agent alone.
 */
import type { OpenWait } from './waits';
import type { AgentConfig } from './agent-config';
import type { HistoryEntry, ToolCallRequest } from './entries';
import type { AgentRunState } from './run-state';
import type { AgentError } from './step-io';
import type { EffectRecord } from './effect-ledger';
import type { Task } from './widgets/index';

export interface UsageTotals {
  inputTokens: number;
  outputTokens: number;
  cachedInputTokens: number;
  costUsd: number;
  /** Model calls recorded: answers and compactions' summary calls. */
  modelCalls: number;
}

/** Usage as `state` shows it: the totals and the prompt cache's hit ratio. */
export interface StatusUsage extends UsageTotals {
  /** Cached input tokens / input tokens over every call (0–1); absent before any input token was counted. */
  cacheHitRatio?: number;
}

/** The totals with their cache hit ratio. */
export function withCacheHitRatio(usage: UsageTotals): StatusUsage {
  return usage.inputTokens > 0 ? { ...usage, cacheHitRatio: Math.round((usage.cachedInputTokens / usage.inputTokens) * 1000) / 1000 } : usage;
}

/** A snapshot of the agent's status, as the `state` query returns it. */
export interface AgentStatus {
  runState: AgentRunState;
  /**
   * What the agent waits for: `input` (idle), `error` (a failed model call), `approval`, `unknown_outcome`
   * (a tool call whose outcome is unknown waits to be resolved), or null (working).
   */
  blockedOn: 'input' | 'error' | 'approval' | 'unknown_outcome' | null;
  /** Tool calls waiting for a person to approve or deny them. */
  awaitingApproval: Array<{ toolCallId: string; toolName: string; arguments: string; reason: string; requestedAt: string }>;
  /**
   * Everything the agent waits on from outside, each with a stable id to answer it by (`answerWait`):
   * approvals, unknown outcomes and its open question (`ask_user`); absent when none.
   */
  waits?: OpenWait[];
  /** Tool calls whose outcome is unknown (an attempt started and never reported), waiting for `resolve`; absent when none. */
  unknownOutcomes?: Array<{ toolCallId: string; toolName: string; arguments: string; reason: string; startedAt: string; since: string }>;
  /** The effect ledger of the current batch's activity calls: when each started and how it ended; absent when none. */
  effects?: Array<{ toolCallId: string } & EffectRecord>;
  config: AgentConfig;
  systemInstruction: string;
  /** The memory notebook widget's content. */
  notebook: string;
  /** The task list widget's tasks (empty when the model keeps none). */
  tasks: Task[];
  /** Names of the MCP servers' tools the agent was last offered, once a model call found any. */
  mcpTools?: string[];
  /**
   * Sub-agents working (or just answered) for the current batch of tool calls. `agentId` is '' for a child
   * being started: the call is recorded first, and the start picks the child's id.
   */
  subAgents?: Array<{ toolCallId: string; agentId: string; profile: string; startedAt: string; status: 'Running' | 'Success' | 'Failed' }>;
  /** When this agent is a sub-agent: who delegated to it. */
  delegatedBy?: { agentId: string; toolCallId: string; depth: number };
  entryCount: number;
  lastSeq: number;
  inboxLength: number;
  nextInputSeq: number;
  consumedInputSeq: number;
  pendingToolCalls: ToolCallRequest[];
  pendingToolResultCount: number;
  lastError: AgentError | null;
  usage: StatusUsage;
  stopping: boolean;
  /** Something the agent cannot do as it should, though it goes on working (e.g. carry its state to a new run). */
  warning: string | null;
}

/** Totals from recorded entries only, so retries and replays never count twice. */
/** Two usage totals added up (the working set's and the archive's, or the archive's and a seal's). */
export function addUsage(a: UsageTotals, b: UsageTotals): UsageTotals {
  return {
    inputTokens: a.inputTokens + b.inputTokens,
    outputTokens: a.outputTokens + b.outputTokens,
    cachedInputTokens: a.cachedInputTokens + b.cachedInputTokens,
    costUsd: a.costUsd + b.costUsd,
    modelCalls: a.modelCalls + b.modelCalls,
  };
}

export function usageTotals(entries: readonly HistoryEntry[]): UsageTotals {
  const usage: UsageTotals = { inputTokens: 0, outputTokens: 0, cachedInputTokens: 0, costUsd: 0, modelCalls: 0 };
  for (const e of entries) {
    if (e.kind !== 'model_output' && e.kind !== 'compaction') continue;
    usage.modelCalls += 1;
    usage.inputTokens += e.usage?.inputTokens ?? 0;
    usage.outputTokens += e.usage?.outputTokens ?? 0;
    usage.cachedInputTokens += e.usage?.cachedInputTokens ?? 0;
    usage.costUsd += e.usage?.costUsd ?? 0;
  }
  return usage;
}
