/** Inputs of the agent's activities: plain JSON, references rather than transcripts. */
import type { ModelCallRequest, ToolCallRequest } from '../agent/index';
import type { SegmentRef } from '../agent/archive';

export interface CallModelInput extends ModelCallRequest {
  /** The agent's workflow id and run id, used to query the entries this worker lacks. */
  agentId: string;
  runId: string;
  /**
   * The agent schedules the call again on its provider's task queue when this worker cannot make it
   * (workflows/model-routing.ts); absent in calls from agents whose code predates that.
   */
  routable?: boolean;
  /**
   * The archived segments this call reads beside the working set (agent/archive.ts segmentsForContext);
   * present, possibly empty, whenever the agent has archived entries, which also offers it `recall` and `expand`.
   */
  segments?: SegmentRef[];
}

export interface ExecuteToolInput {
  agentId: string;
  runId: string;
  call: ToolCallRequest;
  /** `workflowId/toolCallId`: stable across retries and crashes, so tools can deduplicate side effects. */
  idempotencyKey: string;
  /** The agent's tool allowance; absent = every registered tool. */
  allowedTools?: string[];
  /** A person approved this call (or the agent's policy waives approval): skip the tool's own policy. */
  approved?: boolean;
  /** false: the model named a tool it was not offered, so no worker is expected to have it. */
  offered?: boolean;
}

/** What the worker's data converter does with payloads over Temporal's limits. */
export interface PayloadLimits {
  /** Large payloads go to a blob store and history holds references; false: they would be refused. */
  offloading: boolean;
}
