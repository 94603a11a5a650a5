/**
 * When the client may send a query or an update again, and how long it keeps trying. An input must be
 * accepted exactly once, so an update that changes the agent is sent again only after an error that
 * proves the agent never accepted it; a wait for an answer changes nothing and may be repeated at will.
 */
import { WorkflowUpdateFailedError, WorkflowUpdateRPCTimeoutOrCancelledError } from '@temporalio/client';

export interface Backoff {
  /** Gives up once failures have lasted this long (counted from the first one). */
  patienceMs: number;
  firstDelayMs: number;
  maxDelayMs: number;
}

/** What an update refused without accepting it needs before it is sent again. */
export interface Resend {
  backoff: Backoff;
  /** A fresh update id: the server may remember a rejected id, and would repeat the rejection. */
  freshId: boolean;
}

/** gRPC status codes (grpc-js is Temporal's dependency, not ours). */
const status = { CANCELLED: 1, DEADLINE_EXCEEDED: 4, RESOURCE_EXHAUSTED: 8, UNAVAILABLE: 14 } as const;

/** Overload and failing workflow tasks clear up by themselves; a burst of a thousand inputs takes minutes. */
const REFUSED: Backoff = { patienceMs: 300_000, firstDelayMs: 100, maxDelayMs: 10_000 };
/** A server that restarts, or a network that drops, for this long still gets its waits answered. */
const UNREACHABLE: Backoff = { patienceMs: 600_000, firstDelayMs: 500, maxDelayMs: 5_000 };

/**
 * Why an update was refused before the agent accepted it (so sending it again cannot accept it twice),
 * or undefined if it may have been accepted.
 */
export function refusedUnaccepted(err: unknown): Resend | undefined {
  const code = grpcCode(err);
  const text = errorText(err);
  // RESOURCE_EXHAUSTED: the server turned the request away at admission — at most 10 updates of one
  // workflow may be in flight, or the namespace's rate limit was hit. Nothing reached the workflow.
  if (code === status.RESOURCE_EXHAUSTED) return { backoff: REFUSED, freshId: false };
  // "workflow update was aborted" (also "… by closing workflow"): the server dropped its record of an
  // update it had not yet seen accepted (its update registry was cleared, or the run closed — on
  // continue-as-new the next run takes the input). An update already accepted is never reported so: the
  // server answers with its outcome instead. The same id is sent again, as the server expects.
  if (/workflow update was aborted/i.test(text)) return { backoff: REFUSED, freshId: false };
  // The workflow task is failing for now (a worker died mid-task, a replay outlasted the task timeout):
  // Temporal refuses updates before admitting them until a task succeeds again.
  if (/Workflow Task in failed state/i.test(text)) return { backoff: REFUSED, freshId: false };
  // "Workflow Update is rejected because it wasn't processed by worker": a workflow task completed without
  // the worker accepting or rejecting the update (under load). A rejection is final and leaves nothing
  // in the agent; the retry needs a fresh id.
  if (err instanceof WorkflowUpdateFailedError && (err.cause as { type?: string } | undefined)?.type === 'UnprocessedUpdate') {
    return { backoff: REFUSED, freshId: true };
  }
  // No connection could be made: the request never left this process. (Had an earlier attempt of the
  // same update reached the server before its connection dropped, the same id makes the server
  // recognise it rather than take it again — the Temporal client's own retries rely on that too.)
  if (code === status.UNAVAILABLE && /ECONNREFUSED|No connection established/i.test(text)) return { backoff: REFUSED, freshId: false };
  return undefined;
}

/**
 * Errors worth repeating an idempotent update for (a wait for an answer): everything refusedUnaccepted
 * names, and a server or network that is down or restarting, or a call that timed out — the agent goes
 * on without us, and the same wait picks up where it was.
 */
export function repeatIdempotent(err: unknown): Resend | undefined {
  const code = grpcCode(err);
  const unreachable =
    err instanceof WorkflowUpdateRPCTimeoutOrCancelledError ||
    code === status.UNAVAILABLE ||
    code === status.DEADLINE_EXCEEDED ||
    code === status.CANCELLED ||
    /ECONNREFUSED|ECONNRESET|No connection established|Connection dropped|RST_STREAM/i.test(errorText(err));
  return unreachable ? { backoff: UNREACHABLE, freshId: false } : refusedUnaccepted(err);
}

/**
 * Runs `run` again, after growing pauses with jitter (so a burst of refused callers does not come back
 * all at once), while `retryable` says how; gives up when failures outlast the backoff's patience.
 */
export async function retryWhile<T>(run: (attempt: number) => Promise<T>, retryable: (err: unknown) => Backoff | undefined): Promise<T> {
  let firstFailure: number | undefined;
  for (let attempt = 0, delay = 0; ; attempt++) {
    try {
      return await run(attempt);
    } catch (err) {
      const backoff = retryable(err);
      firstFailure ??= Date.now();
      if (!backoff || Date.now() - firstFailure > backoff.patienceMs) throw err;
      delay = Math.min(Math.max(delay * 2, backoff.firstDelayMs), backoff.maxDelayMs);
      await new Promise((r) => setTimeout(r, delay * (0.5 + Math.random())));
    }
  }
}

/** The gRPC status code of an error or of one of its causes (Temporal's client wraps them). */
export function grpcCode(err: unknown): number | undefined {
  return grpcStatus(err)?.code;
}

/** The server's own words (a gRPC status's details) under an error Temporal's client wrapped. */
export function grpcDetails(err: unknown): string | undefined {
  return grpcStatus(err)?.details;
}

function grpcStatus(err: unknown): { code: number; details: string } | undefined {
  for (let e = err as { code?: unknown; cause?: unknown; details?: unknown } | undefined, depth = 0; e && depth < 5; e = e.cause as typeof e, depth++) {
    if (typeof e.code === 'number' && typeof e.details === 'string') return { code: e.code, details: e.details };
  }
  return undefined;
}

/** An error's message with its causes', where Temporal's client puts the server's words. */
export function errorText(err: unknown): string {
  const parts: string[] = [];
  for (let e = err as { message?: unknown; cause?: unknown } | undefined, depth = 0; e && depth < 5; e = e.cause as typeof e, depth++) {
    if (typeof e.message === 'string') parts.push(e.message);
  }
  return parts.length ? parts.join(' ') : String(err);
}
