/**
 * `livecontext/worker`: what runs in a worker process — the worker itself, tools, model providers and
 * the payload codecs. Listed by name; the modules behind it are internal.
 */
export {
  createLivecontextWorker,
  DEBUG_LOGS_PATH,
  SHARED_MODULES_PATH,
  WORKFLOW_STACK_TRACES_PATH,
  WORKFLOWS_PATH,
  type LivecontextWorkerOptions,
} from './create-worker';
export { startWorker, type RunningWorker } from './run-worker';
/** Also in `livecontext`, on purpose: clients and workers connect by the same settings and must share the payload codecs. */
export { connectSettings, type ConnectSettings } from '../common/connection';
export { livecontextDataConverter, payloadCodecs, codecOptionsFromEnv, type CodecOptions } from '../common/codec/data-converter';
export { installLogging } from '../common/logging';
export { startTracing, type Tracing } from '../common/telemetry';
export { installRuntimeMetrics, metricsFromEnv } from '../common/metrics';
export { TRACING_WORKFLOW_MODULE } from '../activities/telemetry/worker-tracing';
export { OffloadCodec, DEFAULT_OFFLOAD_THRESHOLD } from '../common/codec/offload-codec';
export { EncryptionCodec, parseKeys, type EncryptionKeys } from '../common/codec/encryption-codec';
export { FileBlobStore, type BlobStore } from '../common/codec/blob-store';
export { S3BlobStore, type S3BlobStoreOptions } from '../common/codec/s3-blob-store';
export { blobStoreFromEnv } from '../common/codec/blob-store-from-env';
/** The agents' archives of sealed entries in the blob store (`archive` worker option). */
export { ArchiveStore, type ArchiveStoreOptions } from '../common/archive/index';
export { startCodecServer } from '../common/codec/codec-server';

export { createActivities, type ActivityDeps } from '../activities/index';

/** Tools. */
export { defineTool, DEFAULT_TOOL_TIMEOUT_MS, MAX_TOOL_TIMEOUT_MS, type Tool, type ToolContext, type ToolOutput } from '../activities/tools/define-tool';
export { ToolRetryableError, ToolTimeoutError, type ToolRetryPolicy, DEFAULT_TOOL_RETRY } from '../activities/tools/tool-retry';
export { ToolRegistry } from '../activities/tools/registry';
export { workspaceTools, writeFileTool, readFileTool, editFileTool, listFilesTool, deleteFileTool } from '../activities/tools/workspace-tools';
export { runCommandTool, createRunCommandTool } from '../activities/tools/run-command';
export { createHttpRequestTool, IDEMPOTENCY_HEADER, type HttpRequestOptions } from '../activities/tools/http-request';
/** MCP servers' tools (`createLivecontextWorker({ mcpServers })`); the MCP SDK itself loads only when servers are given. */
export { loadMcpConfigFile, parseMcpConfig, type McpServerConfig } from '../activities/mcp/config';
export type { McpServersOption } from './mcp-servers';
export { MCP_IDEMPOTENCY_META_KEY } from '../activities/mcp/idempotency-meta';
/** Remote A2A agents as tools (`createLivecontextWorker({ a2aAgents })`); the A2A SDK's client loads only when agents are given. */
export { parseA2aConfig, a2aAgentsIn, type A2aAgentConfig } from '../activities/a2a/config';
export type { A2aAgentsOption } from './a2a-agents';

/** Model providers. */
export { ModelRouter, type ModelProvider, type ProviderReadiness, type Readiness } from '../activities/models/model-router';
export { openaiProvider, OpenAIChatModel, type OpenAIProviderOptions } from '../activities/models/openai-model';
export { anthropicProvider, AnthropicMessagesModel, type AnthropicProviderOptions } from '../activities/models/anthropic-model';
export { offlineDemoProvider, OFFLINE_DEMO_MODEL } from '../activities/models/offline-demo-model';
export { ScriptedModelProvider, type Script, type ScriptStep, type ScriptedRequest } from '../activities/models/scripted-model';
export { ModelError } from '../activities/models/provider-errors';
export { loadPriceTable, type PriceTable } from '../activities/models/prices';
export { DEFAULT_MODEL_LIVENESS, type ModelLiveness, type ModelStreamObserver } from '../activities/call-model';
/** The Model contract, for a provider of your own (`models: [{ id, create }]`). */
export type { Model, ModelConfig, ModelInfo, RequestMetadata, StreamOptions, ToolChoice } from '../agent/model';
export { DeltaSequencer, type MessageDelta, type FinishReason, type StreamUsage, type UnnumberedDelta } from '../agent/message-delta';
export type { ContextMessage } from '../agent/live-context';
export type { ToolSpec } from '../agent/tool-spec';
