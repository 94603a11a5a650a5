/**
 * One JSON shape for every error the gateway answers: `{ "error": { "code", "message" } }` with the
 * HTTP status that says what to do (fix the request, authenticate, retry later…). Errors from Temporal
 * and the agent are mapped here, once.
 */
import { WorkflowExecutionAlreadyStartedError, WorkflowNotFoundError, WorkflowUpdateFailedError } from '@temporalio/client';
import { HTTPException } from 'hono/http-exception';
import type { ContentfulStatusCode } from 'hono/utils/http-status';
import { ZodError } from 'zod';
import { InputRejectedError, LivecontextError, SnapshotError } from '../agent/errors';
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

export function toHttpError(err: unknown): HttpError {
  if (err instanceof HttpError) return err;
  if (err instanceof HTTPException) return new HttpError(err.status as ContentfulStatusCode, err.status === 413 ? 'PAYLOAD_TOO_LARGE' : 'HTTP_ERROR', err.message || 'Request refused.');
  if (err instanceof ZodError) return new HttpError(400, 'BAD_REQUEST', 'The request does not match its schema.', err.issues);
  if (err instanceof SyntaxError) return new HttpError(400, 'BAD_JSON', `The body is not valid JSON: ${err.message}`);
  if (err instanceof WorkflowNotFoundError) return new HttpError(404, 'AGENT_NOT_FOUND', err.message);
  if (err instanceof WorkflowExecutionAlreadyStartedError) return new HttpError(409, 'AGENT_EXISTS', 'An agent with this id is already running.');
  if (err instanceof NoWorkerError) return new HttpError(503, 'NO_WORKER', err.message);
  if (err instanceof SnapshotError) return new HttpError(400, err.code, err.message);
  if (err instanceof InputRejectedError) return new HttpError(409, err.code, err.message);
  if (err instanceof WorkflowUpdateFailedError) {
    // The agent refused the update (e.g. an approval for a call that is not pending).
    return new HttpError(409, 'REFUSED', errorText(err.cause ?? err).split('\n')[0]);
  }
  if (err instanceof LivecontextError) return new HttpError(400, err.code, err.message);
  const code = grpcCode(err);
  if (code === 5) return new HttpError(404, 'AGENT_NOT_FOUND', errorText(err).split('\n')[0]);
  if (code === 8) return new HttpError(429, 'OVERLOADED', 'Temporal is overloaded; retry later.');
  if (code === 14 || code === 4) return new HttpError(503, 'UNAVAILABLE', `Temporal did not answer: ${errorText(err).split('\n')[0]}`);
  return new HttpError(500, 'INTERNAL', 'Internal error; see the gateway log.');
}

export function errorBody(e: HttpError): ErrorBody {
  return { error: { code: e.code, message: e.message, ...(e.issues !== undefined ? { issues: e.issues } : {}) } };
}
