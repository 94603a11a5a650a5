/**
 * `livecontext/workflow`: what code inside a Temporal workflow may import — pure, deterministic, no Node
 * or vendor SDKs. The agent workflows (to host them in your own workflow bundle, or start agents as child
 * workflows), their messages (to signal or update an agent from another workflow), and the agent core
 * (seeds 000, 002 and 004). Not the bundle entry: that is ./index.ts, which exports workflow functions only.
 */
export { agentWorkflow } from './agent-workflow';
export { workerInfoWorkflow, type WorkerInfo } from './worker-info-workflow';
// workflows/messages.ts is itself the named list of the agent's messages: every export there is public.
export * from './messages';

/** The agent core. */
export { Agent, type TurnOutcome } from '../agent/agent';
export type { Clock } from '../agent/agent-state';
export type { StepDeps, StepOutcome, ModelCallRequest, ModelCallResult, AgentError, ApprovalRequired } from '../agent/step-io';
export { AgentConfig, NewAgentConfig, ConfigChange } from '../agent/agent-config';
export { AgentInput, parseInput } from '../agent/input';
export { AgentSnapshot } from '../agent/snapshot';
export { readSnapshot } from '../agent/snapshot-check';
export { ToolDecision, parseToolDecision } from '../agent/tool-decision';
export { AgentRunState, determineState } from '../agent/run-state';
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
} from '../agent/entries';
