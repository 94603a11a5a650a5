/** Inputs of the agent's activities: plain JSON, references rather than transcripts. */
import type { CompactionRequest, JsonValue, ModelCallRequest, SegmentRef, ToolCallRequest } from '../agent/index';

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
   * When older entries are archived: the working set starts after `throughSeq`. Runs since the patch
   * archive-by-reference say no more than that and `rewinds` (how many archived rewinds the index holds,
   * once there is one): the activity reads the index itself, so the input does not grow as the agent ages.
   * Calls scheduled before it carry `segments`, the archived segments the context needs (the newest ones;
   * see agent/archive.ts segmentsForContext), and `rewound`, the archived seqs rewinds took out (ArchiveIndex.rewound).
   */
  archive?: { throughSeq: number; rewinds?: number; segments?: SegmentRef[]; rewound?: Array<[number, number]> };
}

/** One seal: the working entries `fromSeq`…`toSeq` into a segment, and maybe older references into a manifest. */
export interface SealArchiveInput {
  agentId: string;
  runId: string;
  fromSeq: number;
  toSeq: number;
  /** The state before `fromSeq` (the archive index's), stored with the segment for readers that start there. */
  before: { systemInstruction: string; widgets: Record<string, JsonValue> };
  /** References to fold into a new manifest chained to `previous` (see agent/archive.ts foldable). */
  fold?: { segments: SegmentRef[]; previous?: string };
}

export interface SealArchiveOutput {
  ref: SegmentRef;
  manifestKey?: string;
}

/** The summary call of a compaction, by reference as a model call is. */
export interface CompactContextInput extends CompactionRequest {
  agentId: string;
  runId: string;
  /** As a model call's: the archived segments the entries to summarise may be in. */
  archive?: CallModelInput['archive'];
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
  /**
   * The agent waits on a call whose earlier attempt's outcome is unknown (the activity answers
   * OutcomeUnknown); absent in calls from agents whose code predates that, which get a Failed result instead.
   */
  unknownOutcomes?: boolean;
}

/** What the worker's data converter does with payloads over Temporal's limits. */
export interface PayloadLimits {
  /** Large payloads go to a blob store and history holds references; false: they would be refused. */
  offloading: boolean;
}
