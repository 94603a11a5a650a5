/** The workflow bundle's entry: only workflow functions are exported from here. */
export { agentWorkflow } from './agent-workflow';
export { workerInfoWorkflow } from './worker-info-workflow';
export { inspectCallWorkflow } from './inspect-call-workflow';
export { scheduledInputWorkflow } from './scheduled-input-workflow';
