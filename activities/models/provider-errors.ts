/**
 * The one place where provider errors become framework errors. Temporal's retry policy is the only
 * retry layer (the SDKs' own retries are off), so this decides what is retried and when:
 * 408/409/429/5xx/529 and connection failures are retryable (with `retry-after` honoured);
 * 400/401/403/404/422 and context-length errors are not.
 */
import { ApplicationFailure } from '@temporalio/common';

export const ModelError = {
  RateLimit: 'ModelError.RateLimit',
  Overloaded: 'ModelError.Overloaded',
  Server: 'ModelError.Server',
  Timeout: 'ModelError.Timeout',
  Conflict: 'ModelError.Conflict',
  Connection: 'ModelError.Connection',
  StreamIncomplete: 'ModelError.StreamIncomplete',
  FirstTokenTimeout: 'ModelError.FirstTokenTimeout',
  Stalled: 'ModelError.Stalled',
  BadRequest: 'ModelError.BadRequest',
  Authentication: 'ModelError.Authentication',
  PermissionDenied: 'ModelError.PermissionDenied',
  NotFound: 'ModelError.NotFound',
  Unprocessable: 'ModelError.Unprocessable',
  ContextLength: 'ModelError.ContextLength',
  MissingApiKey: 'ModelError.MissingApiKey',
  OutputTooLarge: 'ModelError.OutputTooLarge',
  /**
   * The provider refused an attachment of the request for good (a 400 about an image): the agent leaves
   * it out of later calls, with a note the model reads, and asks again (agent/refused-attachments.ts).
   */
  AttachmentRefused: 'ModelError.AttachmentRefused',
  /** A typed answer that did not match its schema, also when asked again (not retried: the agent blocks on it). */
  InvalidStructuredOutput: 'ModelError.InvalidStructuredOutput',
  Unknown: 'ModelError.Unknown',
} as const;

export interface MappedError {
  code: string;
  message: string;
  retryable: boolean;
  retryAfterMs?: number;
}

const BY_STATUS: Record<number, [string, boolean]> = {
  400: [ModelError.BadRequest, false],
  401: [ModelError.Authentication, false],
  403: [ModelError.PermissionDenied, false],
  404: [ModelError.NotFound, false],
  408: [ModelError.Timeout, true],
  409: [ModelError.Conflict, true],
  422: [ModelError.Unprocessable, false],
  429: [ModelError.RateLimit, true],
  529: [ModelError.Overloaded, true],
};

/** Error `type`s providers send in bodies or mid-stream error events. */
const BY_TYPE: Record<string, [string, boolean]> = {
  overloaded_error: [ModelError.Overloaded, true],
  rate_limit_error: [ModelError.RateLimit, true],
  api_error: [ModelError.Server, true],
  server_error: [ModelError.Server, true],
  timeout_error: [ModelError.Timeout, true],
  authentication_error: [ModelError.Authentication, false],
  permission_error: [ModelError.PermissionDenied, false],
  not_found_error: [ModelError.NotFound, false],
  invalid_request_error: [ModelError.BadRequest, false],
};

const CONTEXT_LENGTH = /context_length_exceeded|context length|prompt is too long|maximum context|too many tokens/i;
/**
 * A 400 about an image: OpenAI's codes (`invalid_image_format`, `image_parse_error`, `invalid_image`,
 * `image_too_large`…) or an error message that names an image (Anthropic: "Could not process image",
 * "messages.0.content.0.image.source.base64: …").
 */
const IMAGE_CODE = /image/i;
const IMAGE_MESSAGE = /\bimages?\b|\.image\./i;

interface ApiErrorLike {
  status?: number;
  headers?: Headers | Record<string, string>;
  message?: string;
  name?: string;
  code?: string | null;
  type?: string;
  error?: { type?: string; message?: string; error?: { type?: string; message?: string } };
}

/** Maps anything an SDK may throw (APIError, connection errors, fetch failures) to a framework error. */
export function mapProviderError(err: unknown): MappedError {
  const e = (err ?? {}) as ApiErrorLike;
  const message = oneLine(e.message ?? String(err));
  const bodyType = e.error?.error?.type ?? e.error?.type ?? e.type;
  if (typeof e.status === 'number') {
    const retryAfterMs = retryAfter(e.headers);
    if (CONTEXT_LENGTH.test(`${e.code ?? ''} ${message}`) && (e.status === 400 || e.status === 413)) {
      return { code: ModelError.ContextLength, message, retryable: false };
    }
    if (e.status === 400 && (IMAGE_CODE.test(e.code ?? '') || IMAGE_MESSAGE.test(message))) {
      return { code: ModelError.AttachmentRefused, message, retryable: false };
    }
    const [code, retryable] = BY_STATUS[e.status] ?? (e.status >= 500 ? [ModelError.Server, true] : [ModelError.Unknown, false]);
    return { code, message, retryable, ...(retryable && retryAfterMs !== undefined ? { retryAfterMs } : {}) };
  }
  if (bodyType && BY_TYPE[bodyType]) {
    const [code, retryable] = BY_TYPE[bodyType];
    return { code, message, retryable };
  }
  // Connection refused/reset, sockets cut mid-stream, fetch "terminated", SDK connection errors.
  return { code: ModelError.Connection, message, retryable: true };
}

/**
 * The shortest retry delay handed to Temporal. A provider's `retry-after: 0` means "try again now", but
 * Temporal takes a zero nextRetryDelay as "no retry at all": the agent would block on the first 429.
 */
export const MIN_RETRY_DELAY_MS = 1;

/** The Temporal failure for a mapped error: typed, nonRetryable from the mapping, nextRetryDelay from retry-after. */
export function toApplicationFailure(mapped: MappedError): ApplicationFailure {
  return ApplicationFailure.create({
    type: mapped.code,
    message: mapped.message,
    nonRetryable: !mapped.retryable,
    ...(mapped.retryAfterMs !== undefined ? { nextRetryDelay: Math.max(MIN_RETRY_DELAY_MS, mapped.retryAfterMs) } : {}),
  });
}

function retryAfter(headers: ApiErrorLike['headers']): number | undefined {
  const get = (name: string) => (headers instanceof Headers ? headers.get(name) : headers ? (headers[name] ?? headers[name.toLowerCase()]) : undefined);
  const ms = get('retry-after-ms');
  if (ms && Number.isFinite(Number(ms))) return Math.max(0, Number(ms));
  const value = get('retry-after');
  if (!value) return undefined;
  if (Number.isFinite(Number(value))) return Math.max(0, Number(value) * 1000);
  const date = Date.parse(value);
  return Number.isNaN(date) ? undefined : Math.max(0, date - Date.now());
}

function oneLine(text: string): string {
  return text.replace(/\s+/g, ' ').trim().slice(0, 1000);
}
