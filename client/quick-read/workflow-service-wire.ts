/**
 * The two WorkflowService calls the CLI's quick reads make — ListWorkflowExecutions and QueryWorkflow —
 * written and read field by field (field numbers from temporal/api/workflowservice/v1/request_response.proto
 * and the messages it names), only the fields livecontext reads.
 */
import { ProtoWriter, readFields, readMapEntry, readString } from '../../common/wire/proto-wire';

export const WORKFLOW_SERVICE = 'temporal.api.workflowservice.v1.WorkflowService';

/** temporal.api.common.v1.Payload, shaped as Temporal's SDK and the codecs (common/codec/) see it. */
export interface WirePayload {
  metadata: Record<string, Uint8Array>;
  data: Uint8Array;
}

/** The fields of WorkflowExecutionInfo a list shows. */
export interface WireExecution {
  workflowId: string;
  runId: string;
  type: string;
  /** Milliseconds since the epoch. */
  startTimeMs: number;
  /** WorkflowExecutionStatus as a number. */
  status: number;
  searchAttributes: Record<string, WirePayload>;
}

/** WorkflowExecutionStatus names as Temporal's SDK gives them (`status.name`). */
export const EXECUTION_STATUS_NAMES = ['UNSPECIFIED', 'RUNNING', 'COMPLETED', 'FAILED', 'CANCELLED', 'TERMINATED', 'CONTINUED_AS_NEW', 'TIMED_OUT', 'PAUSED'];

export function listRequest(namespace: string, query: string, nextPageToken?: Uint8Array): Uint8Array {
  const w = new ProtoWriter().string(1, namespace);
  if (nextPageToken?.length) w.bytes(3, nextPageToken);
  return w.string(4, query).finish();
}

export function readListResponse(bytes: Uint8Array): { executions: WireExecution[]; nextPageToken: Uint8Array } {
  const executions: WireExecution[] = [];
  let nextPageToken: Uint8Array = new Uint8Array(0);
  for (const f of readFields(bytes)) {
    if (f.field === 1 && f.bytes) executions.push(readExecutionInfo(f.bytes));
    else if (f.field === 2 && f.bytes) nextPageToken = f.bytes;
  }
  return { executions, nextPageToken };
}

function readExecutionInfo(bytes: Uint8Array): WireExecution {
  const e: WireExecution = { workflowId: '', runId: '', type: '', startTimeMs: 0, status: 0, searchAttributes: {} };
  for (const f of readFields(bytes)) {
    if (f.field === 1 && f.bytes) {
      for (const g of readFields(f.bytes)) {
        if (g.field === 1) e.workflowId = readString(g.bytes);
        else if (g.field === 2) e.runId = readString(g.bytes);
      }
    } else if (f.field === 2 && f.bytes) {
      for (const g of readFields(f.bytes)) if (g.field === 1) e.type = readString(g.bytes);
    } else if (f.field === 3 && f.bytes) e.startTimeMs = readTimestampMs(f.bytes);
    else if (f.field === 5) e.status = f.uint ?? 0;
    else if (f.field === 11 && f.bytes) {
      for (const g of readFields(f.bytes)) {
        if (g.field !== 1 || !g.bytes) continue;
        const { key, value } = readMapEntry(g.bytes);
        e.searchAttributes[key] = readPayload(value);
      }
    }
  }
  return e;
}

function readTimestampMs(bytes: Uint8Array): number {
  let seconds = 0;
  let nanos = 0;
  for (const f of readFields(bytes)) {
    if (f.field === 1) seconds = f.uint ?? 0;
    else if (f.field === 2) nanos = f.uint ?? 0;
  }
  return seconds * 1000 + Math.floor(nanos / 1e6);
}

export function readPayload(bytes: Uint8Array): WirePayload {
  const p: WirePayload = { metadata: {}, data: new Uint8Array(0) };
  for (const f of readFields(bytes)) {
    if (f.field === 1 && f.bytes) {
      const { key, value } = readMapEntry(f.bytes);
      p.metadata[key] = value;
    } else if (f.field === 2 && f.bytes) p.data = f.bytes;
  }
  return p;
}

/** QueryRejectCondition NOT_OPEN: a closed run is refused rather than answered from its history. */
export const REJECT_NOT_OPEN = 2;

/** A query without arguments to the workflow's latest run, as Temporal's SDK sends it (empty arguments and header). */
export function queryRequest(namespace: string, workflowId: string, queryType: string, rejectCondition = 0): Uint8Array {
  return new ProtoWriter()
    .string(1, namespace)
    .message(2, (w) => w.string(1, workflowId))
    .message(3, (w) =>
      w
        .string(1, queryType)
        .message(2, () => undefined)
        .message(3, () => undefined),
    )
    .uint(4, rejectCondition)
    .finish();
}

/** The query's result payloads, or the status of the run that refused it. */
export function readQueryResponse(bytes: Uint8Array): { payloads?: WirePayload[]; rejectedStatus?: number } {
  let payloads: WirePayload[] | undefined;
  let rejectedStatus: number | undefined;
  for (const f of readFields(bytes)) {
    if (f.field === 1 && f.bytes) {
      payloads = [];
      for (const g of readFields(f.bytes)) if (g.field === 1 && g.bytes) payloads.push(readPayload(g.bytes));
    } else if (f.field === 2 && f.bytes) {
      rejectedStatus = 0;
      for (const g of readFields(f.bytes)) if (g.field === 1) rejectedStatus = g.uint ?? 0;
    }
  }
  return { payloads, rejectedStatus };
}
