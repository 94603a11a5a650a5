/**
 * One JSON shape for every error the gateway answers: `{ "error": { "code", "message" } }` with the
 * HTTP status that says what to do (fix the request, authenticate, retry later…). Errors from Temporal
 * and the agent are mapped here, once.
 */
import { WorkflowExecutionAlreadyStartedError, WorkflowNotFoundError, WorkflowUpdateFailedError } from '@temporalio/client';
import { HTTPException } from 'hono/http-exception';
import type { ContentfulStatusCode } from 'hono/utils/http-status';
import { ZodError } from 'zod';
import { agentIdProblem, quoteId } from '../agent/agent-id';
import { InputRejectedError, LivecontextError, SnapshotError, errorCode } from '../agent/errors';
import { NoWorkerError } from '../client/worker-status';
import { errorText, grpcCode } from '../client/retry';

export interface ErrorBody {
  error: { code: string; message: string; issues?: unknown };
}

/** An error with the status and code the client gets. */
export class HttpError extends Error {
  constructor(
    readonly status: ContentfulStatusCode,
    readonly code: string,
    message: string,
    readonly issues?: unknown,
  ) {
    super(message);
    this.name = new.target.name;
  }
}

/**
 * `id` when it can be an agent id (agent/agent-id.ts), else a 400 saying why: for the routes that take an
 * agent id outside a zod schema (the event stream, AG-UI's threadId).
 */
export function requireAgentId(id: string | undefined, where: string): string {
  const problem = agentIdProblem(id ?? '');
  if (problem) throw new HttpError(400, 'BAD_AGENT_ID', `The ${where} is not an agent id: ${problem}.`);
  return id!;
}

/** What a 404 for an agent says: its id, quoted (escapes and all), in plain words. */
export function noAgent(agentId: string | undefined): string {
  return agentId ? `No agent ${quoteId(agentId)} in this namespace.` : 'No such agent in this namespace.';
}

/** `err` as the client sees it; `agentId`: the agent the request named (for a 404's words). */
export function toHttpError(err: unknown, agentId?: string): HttpError {
  if (err instanceof HttpError) return err;
  if (err instanceof HTTPException) return fromHttpException(err);
  if (err instanceof ZodError) return new HttpError(400, 'BAD_REQUEST', 'The request does not match its schema.', err.issues);
  if (err instanceof SyntaxError) return new HttpError(400, 'BAD_JSON', `The body is not valid JSON: ${err.message}`);
  if (ended(err)) return new HttpError(409, 'AGENT_ENDED', 'The agent has ended (stopped or failed): start a new one, or import its export under a new id.');
  if (err instanceof WorkflowNotFoundError) return new HttpError(404, 'AGENT_NOT_FOUND', noAgent(err.workflowId || agentId));
  if (err instanceof WorkflowExecutionAlreadyStartedError) return new HttpError(409, 'AGENT_EXISTS', 'An agent with this id is already running.');
  if (err instanceof NoWorkerError) return new HttpError(503, 'NO_WORKER', err.message);
  if (err instanceof SnapshotError) return new HttpError(400, err.code, err.message);
  if (err instanceof InputRejectedError) return refused(err.code, err.message);
  if (err instanceof WorkflowUpdateFailedError) {
    // The agent refused the update (e.g. an approval for a call that is not pending); its code says why.
    return refused(errorCode(err) ?? 'REFUSED', errorText(err.cause ?? err).split('\n')[0]);
  }
  if (err instanceof LivecontextError) return new HttpError(400, err.code, err.message);
  const code = grpcCode(err);
  if (code === 5) return new HttpError(404, 'AGENT_NOT_FOUND', noAgent(agentId));
  if (code === 8) return new HttpError(429, 'OVERLOADED', 'Temporal is overloaded; retry later.');
  if (code === 14 || code === 4) return new HttpError(503, 'UNAVAILABLE', `Temporal did not answer: ${errorText(err).split('\n')[0]}`);
  return new HttpError(500, 'INTERNAL', 'Internal error; see the gateway log.');
}

/** Temporal's answer to an update or signal for an agent whose workflow has completed: it exists, but takes nothing. */
function ended(err: unknown): boolean {
  return (err instanceof WorkflowNotFoundError || grpcCode(err) === 5) && /already completed/i.test(errorText(err));
}

/** Hono's own refusals (the body parser, the media-type check, the body limit) with codes of ours. */
function fromHttpException(err: HTTPException): HttpError {
  const status = err.status as ContentfulStatusCode;
  if (status === 400) return new HttpError(400, 'BAD_JSON', `The body is not valid JSON (${err.message || 'malformed'}).`);
  if (status === 413) return new HttpError(413, 'PAYLOAD_TOO_LARGE', err.message || 'The request body is too large.');
  if (status === 415) return new HttpError(415, 'UNSUPPORTED_MEDIA_TYPE', 'Send the body as JSON (Content-Type: application/json).');
  return new HttpError(status, 'HTTP_ERROR', err.message || 'Request refused.');
}

/**
 * Input or a change the agent refused: a conflict with its state (409), except an input over the size
 * limit (413) and an answer asked for an input the agent never took (404).
 */
function refused(code: string, message: string): HttpError {
  if (code === 'INPUT_TOO_LARGE') return new HttpError(413, code, message);
  if (code === 'BAD_AGENT_ID' || code === 'RESERVED_IDEMPOTENCY_KEY') return new HttpError(400, code, message);
  if (code === 'BAD_FORK_POINT' || code === 'BAD_COMPARE') return new HttpError(400, code, message); // the request names a point that is not one
  if (code === 'UNKNOWN_INPUT' || code === 'UNKNOWN_WAIT') return new HttpError(404, code, message);
  if (code === 'UNSAFE_PATTERN') return new HttpError(400, code, message); // the request's own schema, as other bad schemas
  return new HttpError(409, code, message);
}

export function errorBody(e: HttpError): ErrorBody {
  return { error: { code: e.code, message: e.message, ...(e.issues !== undefined ? { issues: e.issues } : {}) } };
}

/** A catch handler that lets the agent's refusal `code` pass (the caller reads the outcome instead) and rethrows the rest. */
export function passRefusal(code: string): (err: unknown) => void {
  return (err) => {
    if (toHttpError(err).code !== code) throw err;
  };
}
