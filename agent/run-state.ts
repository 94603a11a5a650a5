/**
 * The five run states of seed 004, decided from the history alone (plus pending tool results).
 * Entries that are not context messages (system instruction changes) never change the state.
 */
import type { ContextualEntry, ToolCallResult } from './entries';

export const AgentRunState = {
  /** Empty history, or the last output has no tool calls: pull the next input from the inbox. */
  WaitingInput: 'WaitingInput',
  /** The last entry is a model input: call the model. */
  PendingInput: 'PendingInput',
  /** The last output has tool calls that still lack results: run the first one without a result. */
  WaitingToolResults: 'WaitingToolResults',
  /** Every call of the last output has a result: append one ToolResultsEntry in call order. */
  ToolResultsReady: 'ToolResultsReady',
  /** The last entry is a ToolResultsEntry: call the model. */
  PendingToolResults: 'PendingToolResults',
} as const;
export type AgentRunState = (typeof AgentRunState)[keyof typeof AgentRunState];

export function determineState(last: ContextualEntry | undefined, pendingResults: readonly ToolCallResult[]): AgentRunState {
  if (!last) return AgentRunState.WaitingInput;
  switch (last.kind) {
    case 'model_input':
      return AgentRunState.PendingInput;
    case 'tool_results':
      return AgentRunState.PendingToolResults;
    case 'model_output': {
      if (last.toolCalls.length === 0) return AgentRunState.WaitingInput;
      // Matched by ToolCallId, not only counted (seed 004 "按 ToolCallId 匹配").
      const answered = last.toolCalls.filter((call) => pendingResults.some((r) => r.toolCallId === call.toolCallId));
      return answered.length === last.toolCalls.length ? AgentRunState.ToolResultsReady : AgentRunState.WaitingToolResults;
    }
  }
}

/**
 * The word an agent at rest is listed under (search attribute `LivecontextRunState`): what it waits for
 * after a step that made no progress, or `Working`.
 */
export function restLabel(outcome: 'BlockedOnInput' | 'BlockedOnApproval' | 'BlockedOnError' | 'Working' | string): string {
  if (outcome === 'BlockedOnInput') return 'WaitingInput';
  if (outcome === 'BlockedOnApproval') return 'WaitingApproval';
  return outcome;
}
