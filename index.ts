/**
 * `livecontext`: the client side — start agents, feed them, read them — and the types they exchange.
 * Workers import `livecontext/worker`; code that runs inside a Temporal workflow imports
 * `livecontext/workflow`. Everything public is listed by name, here or in workflows/agent-api.ts; other
 * modules are internal.
 */
export { AgentClient, type AgentClientOptions } from './client/agent-client';
export type { AgentSummary } from './client/agent-list';
export type { ForkOptions, ForkResult, ForkSummary } from './client/agent-fork';
export type { CompareOptions, CompareResult } from './client/agent-compare';
export type { StartAgentOptions } from './client/agent-start';
export type { InspectedCall } from './client/inspect-call';
export { outcomeText } from './client/outcome-text';
export { connectAgents } from './client/connect';
export { clientInterceptors } from './client/closed-channel-guard';
export { TypedAnswerError, type TypedAskOptions, type TypedOutcome } from './client/typed-answer';
export { NoWorkerError } from './client/worker-status';
export type { WorkerStatus } from './common/task-queue-pollers';
export { UserError } from './common/user-error';
export type { PartialOutput } from './activities/call-model';
/** Also in `livecontext/worker`, on purpose: clients and workers connect by the same settings and must share the payload codecs. */
export { connectSettings, type ConnectSettings } from './common/connection';
export { livecontextDataConverter, type CodecOptions } from './common/codec/data-converter';
/** Also here on purpose, for tool modules that import it from `livecontext` (the README says it works); its home is `livecontext/worker`. */
export {
  defineTool,
  type Tool,
  type ToolContext,
  type ToolOutput,
  ToolRetryableError,
  ToolTimeoutError,
  type ToolRetryPolicy,
} from './activities/tools/define-tool';

/**
 * The agent's API — its messages and names for any Temporal client (see "Input from other services"),
 * the entry, config and snapshot types, the errors — is the list `livecontext/workflow` exports too:
 * written once, in workflows/agent-api.ts (pure, so loading it here pulls no workflow or Node code).
 */
export * from './workflows/agent-api';
