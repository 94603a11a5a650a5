/**
 * The agent workflow's names as plain strings, without a Temporal import: what workflows/messages.ts
 * defines its task queue, search attributes, type and state query from, and what the CLI's quick reads
 * (client/quick-read/) use without loading Temporal's SDK.
 */
export const TASK_QUEUE = 'livecontext-agents';
export const WORKFLOW_TYPE = 'agentWorkflow';
export const STATE_QUERY = 'state';
export const RUN_STATE_ATTRIBUTE_NAME = 'LivecontextRunState';
export const MODEL_ATTRIBUTE_NAME = 'LivecontextModel';
export const PROVIDER_ATTRIBUTE_NAME = 'LivecontextProvider';
