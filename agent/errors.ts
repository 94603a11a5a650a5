/**
 * The framework's small error hierarchy: every error livecontext raises on purpose is a LivecontextError
 * with a stable `code`, so callers tell errors apart by class or code, never by message text.
 * `this.name = new.target.name` keeps `instanceof` and readable names working inside the workflow
 * sandbox, where classes are re-evaluated per isolate.
 *
 * Codes are UPPER_SNAKE_CASE (`EMPTY_INPUT`, `NO_WORKER`). A model provider's failure keeps its
 * `ModelError.*` type (activities/models/provider-errors.ts): it is a Temporal failure type recorded in
 * agents' histories and snapshots, so it is not renamed.
 */
export class LivecontextError extends Error {
  /** Stable machine-readable code, e.g. `EMPTY_INPUT`. */
  readonly code: string;

  constructor(code: string, message: string, options?: { cause?: unknown }) {
    super(message, options);
    this.name = new.target.name;
    this.code = code;
  }
}

/** A semantic append to the agent history broke one of its invariants. */
export class HistoryValidationError extends LivecontextError {}

/** Input from a person or a service was refused (blank, oversized, malformed). */
export class InputRejectedError extends LivecontextError {}

/** An agent snapshot could not be read (unknown version, malformed shape). */
export class SnapshotError extends LivecontextError {}

/** A model stream broke the MessageDelta protocol (seed 002 invariants). */
export class StreamProtocolError extends LivecontextError {}

/**
 * A failure of the machinery around the agent, not of its model or tools (e.g. this worker cannot
 * decode an activity's result): never recorded in the agent's state. In a workflow it fails the
 * workflow task, which Temporal retries, perhaps on a worker that can do it.
 */
export class InfrastructureError extends LivecontextError {}

/**
 * The livecontext code an error carries, wherever Temporal wrapped it: a LivecontextError's `code`, or
 * the `type` of the ApplicationFailure the agent workflow raised for one — an update the agent refused
 * reaches a client as WorkflowUpdateFailedError whose cause has the code as its type (`INPUT_TOO_LARGE`,
 * `BAD_DECISION`…), a failed model call as `ModelError.*`. Undefined when no such code is found.
 */
export function errorCode(err: unknown): string | undefined {
  const seen = new Set<unknown>();
  for (let e = err; e && typeof e === 'object' && !seen.has(e); e = (e as { cause?: unknown }).cause) {
    seen.add(e);
    if (e instanceof LivecontextError) return e.code;
    // Duck-typed so that this pure module needs no Temporal import (and works across the sandbox).
    const failure = e as { name?: unknown; type?: unknown };
    if (failure.name === 'ApplicationFailure' && typeof failure.type === 'string' && failure.type) return failure.type;
  }
  return undefined;
}
