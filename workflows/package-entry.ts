/**
 * `livecontext/workflow`: what code inside a Temporal workflow may import — pure, deterministic, no Node
 * or vendor SDKs. The agent workflows (to host them in your own workflow bundle, or start agents as child
 * workflows), the agent's API (its messages, to signal or update an agent from another workflow; the
 * types and errors — the same list `livecontext` exports), and the agent core (seeds 000, 002 and 004).
 * Not the bundle entry: that is ./index.ts, which exports workflow functions only.
 */
export { agentWorkflow } from './agent-workflow';
export { workerInfoWorkflow } from './worker-info-workflow';
export * from './agent-api';

/** The agent core, beyond what agent-api.ts lists. */
export { Agent } from '../agent/agent';
export type { Clock } from '../agent/agent-state';
export type { StepDeps, StepOutcome, ModelCallRequest, ModelCallResult, ApprovalRequired } from '../agent/step-io';
export { parseInput } from '../agent/input';
export { parseToolDecision } from '../agent/tool-decision';
export { determineState } from '../agent/run-state';
