/**
 * The agent's API: its messages, the names a Temporal client needs to reach it, the types they carry
 * and its errors. Both `livecontext` (client code) and `livecontext/workflow` (workflow code, which
 * may signal or start agents too) re-export this list whole, so it is written once. Pure: nothing here
 * loads Node or vendor code.
 */
// workflows/messages.ts is itself the named list of the agent's messages: every export there is public.
export * from './messages';
export type { WorkerInfo } from './worker-info-workflow';

export type { TurnOutcome } from '../agent/agent';
export type { AgentError } from '../agent/step-io';
export { AgentConfig, NewAgentConfig, ConfigChange } from '../agent/agent-config';
export { AgentInput } from '../agent/input';
export { AgentSnapshot } from '../agent/snapshot';
export { readSnapshot } from '../agent/snapshot-check';
export { ToolDecision } from '../agent/tool-decision';
export { AgentRunState } from '../agent/run-state';
export {
  LivecontextError,
  HistoryValidationError,
  InputRejectedError,
  SnapshotError,
  StreamProtocolError,
  InfrastructureError,
  errorCode,
} from '../agent/errors';
export type {
  JsonValue,
  Metadata,
  ContentSection,
  HistoryEntry,
  ModelInputEntry,
  ModelOutputEntry,
  ToolResultsEntry,
  SystemInstructionEntry,
  ModelInvocationDescriptor,
  ToolCallRequest,
  ToolCallResult,
  ToolExecutionStatus,
  TokenUsage,
  ModelFailureEntry,
} from '../agent/entries';
