/**
 * `livecontext`: the client side — start agents, feed them, read them — and the types they exchange.
 * Workers import `livecontext/worker`; code that runs inside a Temporal workflow imports
 * `livecontext/workflow`. Everything public is listed here by name; other modules are internal.
 */
export { AgentClient, type AgentClientOptions } from './client/agent-client';
export type { AgentSummary } from './client/agent-list';
export type { StartAgentOptions } from './client/agent-start';
export { outcomeText } from './client/outcome-text';
export { connectAgents } from './client/connect';
export { TypedAnswerError, type TypedAskOptions, type TypedOutcome } from './client/typed-answer';
export { NoWorkerError } from './client/worker-status';
export type { WorkerStatus } from './common/task-queue-pollers';
export { UserError } from './common/user-error';
export type { WorkerInfo } from './workflows/worker-info-workflow';
export type { PartialOutput } from './activities/call-model';
/** Shared with workers: connection settings from the environment, and the payload codecs both sides need. */
export { connectSettings, type ConnectSettings } from './common/connection';
export { livecontextDataConverter, type CodecOptions } from './common/codec/data-converter';
/** Tool modules written against earlier versions import it from here; its home is `livecontext/worker`. */
export { defineTool, type Tool, type ToolContext, type ToolOutput } from './activities/tools/define-tool';

export {
  LivecontextError,
  HistoryValidationError,
  InputRejectedError,
  SnapshotError,
  StreamProtocolError,
  InfrastructureError,
  errorCode,
} from './agent/errors';
export { AgentConfig, NewAgentConfig, ConfigChange } from './agent/agent-config';
export { AgentInput } from './agent/input';
export { AgentSnapshot } from './agent/snapshot';
export { readSnapshot } from './agent/snapshot-check';
export { ToolDecision } from './agent/tool-decision';
export { AgentRunState } from './agent/run-state';
export type { TurnOutcome } from './agent/agent';
export type { AgentError } from './agent/step-io';
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
} from './agent/entries';

/** The agent workflow's names and messages, for any Temporal client (see "Input from other services"). */
// workflows/messages.ts is itself the named list of the agent's messages: every export there is public.
export * from './workflows/messages';
