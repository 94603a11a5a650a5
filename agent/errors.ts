/**
 * The framework's small error hierarchy. `this.name = new.target.name` keeps `instanceof` and readable
 * names working inside the workflow sandbox, where classes are re-evaluated per isolate.
 */
export class LivecontextError extends Error {
  /** Stable machine-readable code, e.g. `EMPTY_INPUT`. */
  readonly code: string;

  constructor(code: string, message: string) {
    super(message);
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
