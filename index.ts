/** The public API of the livecontext package. */
export * from './agent';
export {
  defineTool,
  type Tool,
  type ToolContext,
  type ToolOutput,
  ToolRegistry,
  ModelRouter,
  type ModelProvider,
  ScriptedModelProvider,
  type Script,
  type ScriptStep,
  workspaceTools,
  OFFLINE_DEMO_MODEL,
} from './activities';
export { createLivecontextWorker, type LivecontextWorkerOptions } from './worker/create-worker';
export { startWorker } from './worker/run-worker';
export { connectSettings } from './worker/connection';
export { AgentClient, outcomeText } from './client/agent-client';
export { connectAgents } from './client/connect';
export * from './workflows/messages';
