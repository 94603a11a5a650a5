/**
 * The agent state a UI shows, as AG-UI state (STATE_SNAPSHOT / STATE_DELTA): what the agent is doing or
 * waiting for, the tool calls waiting for a person (with what a UI needs for approve/deny buttons), the
 * last error, usage totals, the notebook and the tasks, and the agent's place in a tree of agents (the
 * sub-agents working for it, the agent that delegated to it). Only what changes at the pace of a turn:
 * no sequence numbers, which would make a delta of every entry.
 */
import { describeToolRule, effectKey } from '../../agent/index';
import { stateWords } from '../../client/state-view';
import type { AgentStatus } from '../../workflows/messages';
import type { Json } from './json-patch';

export interface AgentStateView {
  [key: string]: Json;
  runState: string;
  /** The run state in the words of every view (client/state-view.ts), and what goes with it. */
  stateWord: string;
  stateDetail: string | null;
  blockedOn: AgentStatus['blockedOn'];
  awaitingApproval: Array<{ toolCallId: string; toolName: string; arguments: string; reason: string; requestedAt: string }>;
  /** Tool calls whose outcome is unknown, waiting for a resolution (done, failed or retry); empty when none. */
  unknownOutcomes: Array<{
    toolCallId: string;
    toolName: string;
    arguments: string;
    reason: string;
    /** When the call was started, and the effect's key (what a service it called saw as Idempotency-Key), to look it up there. */
    startedAt: string;
    key: string;
    since: string;
  }>;
  lastError: { code: string; message: string; at: string } | null;
  model: string;
  stopping: boolean;
  usage: { inputTokens: number; outputTokens: number; cachedInputTokens: number; costUsd: number; modelCalls: number; cacheHitRatio?: number };
  notebook: string;
  tasks: Array<{ id: number; title: string; status: string }>;
  /** Sub-agents working (or just answered) for the current batch of tool calls; empty when none. */
  subAgents: Array<{ toolCallId: string; agentId: string; profile: string; startedAt: string; status: 'Running' | 'Success' | 'Failed' }>;
  /** When this agent is a sub-agent: who delegated to it; null for an agent started by a person or service. */
  delegatedBy: { agentId: string; toolCallId: string; depth: number } | null;
  /** The agent's tool rules (approval policy) in words, in the order they apply; empty when none. */
  toolRules: string[];
}

export function agentStateView(s: AgentStatus, agentId: string): AgentStateView {
  return {
    runState: s.runState,
    ...stateWords(s),
    blockedOn: s.blockedOn,
    awaitingApproval: s.awaitingApproval.map(({ toolCallId, toolName, arguments: args, reason, requestedAt }) => ({
      toolCallId,
      toolName,
      arguments: args,
      reason,
      requestedAt,
    })),
    unknownOutcomes: (s.unknownOutcomes ?? []).map(({ toolCallId, toolName, arguments: args, reason, startedAt, since }) => ({
      toolCallId,
      toolName,
      arguments: args,
      reason,
      startedAt,
      key: effectKey(agentId, toolCallId),
      since,
    })),
    lastError: s.lastError ? { code: s.lastError.code, message: s.lastError.message, at: s.lastError.at } : null,
    model: s.config.model,
    stopping: s.stopping,
    usage: { ...s.usage },
    notebook: s.notebook,
    tasks: s.tasks.map(({ id, title, status }) => ({ id, title, status })),
    // Always present (empty, null), so a delta adds or removes entries of a list, never the key itself.
    subAgents: (s.subAgents ?? []).map(({ toolCallId, agentId, profile, startedAt, status }) => ({ toolCallId, agentId, profile, startedAt, status })),
    delegatedBy: s.delegatedBy ? { agentId: s.delegatedBy.agentId, toolCallId: s.delegatedBy.toolCallId, depth: s.delegatedBy.depth } : null,
    toolRules: (s.config.toolRules ?? []).map(describeToolRule),
  };
}
