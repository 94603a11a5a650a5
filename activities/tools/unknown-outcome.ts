/**
 * A tool call attempted again after its previous attempt started and never reported (the worker died,
 * the activity timed out): did the previous attempt's effect happen? Tool failures are results, so
 * Temporal retries the executeTool activity only then, or when a worker without the tool handed the call
 * on (missing-tool.ts) — which happens before the body, and which that path records in its heartbeat.
 * Heartbeats are sent asynchronously, so details that are missing prove nothing: only a marker naming
 * the previous attempt says it stopped before the body; anything else counts as unknown (the safe side).
 */
import type { ToolOutput } from './define-tool';

/** Heartbeat details of an attempt that stopped before running the tool's body. */
export interface BeforeBodyMarker {
  livecontext_before_body: number;
}

export function beforeBodyMarker(attempt: number): BeforeBodyMarker {
  return { livecontext_before_body: attempt };
}

/** Whether the attempt before `attempt` may have run the body: true unless its heartbeat says it stopped before. */
export function previousOutcomeUnknown(attempt: number, heartbeatDetails: unknown): boolean {
  if (attempt <= 1) return false;
  const marker = heartbeatDetails as Partial<BeforeBodyMarker> | null | undefined;
  return !(typeof marker === 'object' && marker !== null && marker.livecontext_before_body === attempt - 1);
}

/** What a tool's `reconcile` answers: the effect happened (with the result to record), or it did not. */
export type ReconcileAnswer = { done: ToolOutput } | { notDone: true };

/** What the activity does with a call whose previous attempt's outcome is unknown. */
export type UnknownOutcomeStep =
  | { step: 'reconcile' }
  | { step: 'run'; why: 'idempotent' }
  /** Neither reconcile nor idempotent: a person or a service decides (the agent waits). */
  | { step: 'wait' };

/**
 * `reconcile` first when the tool has one; an idempotent tool runs again; any other waits — unless the
 * workflow does not know the wait (code from before it), which gets a Failed result instead (see execute-tool).
 */
export function unknownOutcomeStep(tool: { reconcile?: unknown; idempotent?: boolean }): UnknownOutcomeStep {
  if (typeof tool.reconcile === 'function') return { step: 'reconcile' };
  if (tool.idempotent === true) return { step: 'run', why: 'idempotent' };
  return { step: 'wait' };
}

/** Checks a reconcile answer's shape (a tool's own code wrote it); throws saying what it should be. */
export function checkReconcileAnswer(answer: unknown): ReconcileAnswer {
  const a = answer as Record<string, unknown> | null | undefined;
  if (typeof a === 'object' && a !== null) {
    if (a.notDone === true) return { notDone: true };
    const done = a.done as ToolOutput | undefined;
    if (typeof done === 'string' || (typeof done === 'object' && done !== null && typeof (done as { text?: unknown }).text === 'string')) return { done };
  }
  throw new Error('reconcile must return { done: text | { text, metadata } } or { notDone: true }');
}

/** The text of the outcome an activity returns when it will not guess (the agent waits on it). */
export function unknownOutcomeReason(toolName: string, attempt: number): string {
  return `attempt ${attempt - 1} of ${toolName} started and never reported (its worker died or it timed out); ${toolName} has no reconcile and is not idempotent, so it was not run again`;
}
