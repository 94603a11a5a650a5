/**
 * A tool's retry policy: how often a call is run again after a passing fault, how long it waits between
 * attempts, and which errors count as passing. The bookkeeping of attempts is plain data, so it can ride
 * in the activity's heartbeat details and outlive the worker that made it.
 */

/** How a tool call is retried when an attempt meets a passing fault. Every field has a default. */
export interface ToolRetryPolicy {
  /** Runs of the tool's body in all, the first included; 1 = never retry. Default 3. */
  maxAttempts?: number;
  /** Wait before the second attempt. Default 1000 ms. */
  initialIntervalMs?: number;
  /** Each wait is this many times the one before. Default 2. */
  backoff?: number;
  /** No wait is longer. Default 30 000 ms. */
  maxIntervalMs?: number;
  /**
   * Accepts other errors as retryable (a `ToolRetryableError` always is). A timeout of one attempt is
   * offered as a `ToolTimeoutError`. Default: none.
   */
  retryOn?: (err: unknown) => boolean;
}

/**
 * Thrown by a tool for a passing fault (a 503, a service's timeout): the call is run again under the
 * tool's retry policy. `retryAfterMs` (e.g. from a `Retry-After` header) lengthens the next wait, up to
 * the policy's `maxIntervalMs`.
 */
export class ToolRetryableError extends Error {
  readonly retryAfterMs?: number;
  constructor(message: string, options: { retryAfterMs?: number; cause?: unknown } = {}) {
    super(message, options.cause === undefined ? undefined : { cause: options.cause });
    this.name = new.target.name;
    if (options.retryAfterMs !== undefined) this.retryAfterMs = options.retryAfterMs;
  }
}

/** One attempt that ran out of time; offered to `retryOn`. */
export class ToolTimeoutError extends Error {
  constructor(message: string) {
    super(message);
    this.name = new.target.name;
  }
}

/** Defaults for tools that say nothing: up to 3 attempts, 1 s, 2 s apart, only on ToolRetryableError. */
export const DEFAULT_TOOL_RETRY: Required<Omit<ToolRetryPolicy, 'retryOn'>> = { maxAttempts: 3, initialIntervalMs: 1000, backoff: 2, maxIntervalMs: 30_000 };
/** For tools whose body must not run twice on its own (file writes, commands). */
export const NO_TOOL_RETRY: ToolRetryPolicy = { maxAttempts: 1 };
/**
 * Built-in read-only tools (read_file, list_files, recall, expand): running them again changes nothing,
 * so a passing I/O fault (a busy file, a blob store's 503) is retried.
 */
export const READ_ONLY_TOOL_RETRY: ToolRetryPolicy = { maxAttempts: 3, retryOn: (err) => isTransientIoError(err) };
/** Attempts are bounded so a policy cannot keep one call going for ever. */
export const MAX_TOOL_ATTEMPTS = 20;

/**
 * Why an attempt ended without a result: `retryable` (ToolRetryableError), `error`, `timeout`,
 * `interrupted` (its worker stopped), or what an error's `attemptKind` marker says (MCP calls: `mcp_<reason>`).
 */
export type AttemptErrorKind = 'retryable' | 'error' | 'timeout' | 'interrupted' | (string & {});

/** One failed attempt, as kept in heartbeat details and in the result's metadata (`attempt_errors`). */
export interface AttemptError {
  attempt: number;
  error: string;
  kind: AttemptErrorKind;
  /** ISO time the attempt ended. */
  at: string;
}

/** The attempts of one call so far: how many bodies started, and how each one that ended failed. */
export interface AttemptLedger {
  started: number;
  errors: AttemptError[];
}

/** A failed attempt's message is kept this short (heartbeat details and metadata stay small). */
export const ATTEMPT_ERROR_MAX_CHARS = 300;

export function resolvedPolicy(policy: ToolRetryPolicy | undefined): Required<Omit<ToolRetryPolicy, 'retryOn'>> & Pick<ToolRetryPolicy, 'retryOn'> {
  const p = { ...DEFAULT_TOOL_RETRY, ...definedOnly(policy ?? {}) };
  return { ...p, maxAttempts: Math.max(1, Math.min(MAX_TOOL_ATTEMPTS, Math.floor(p.maxAttempts))) };
}

/** Checks a policy where it is written (defineTool, the MCP config) so a bad one fails at start-up. */
export function policyProblem(policy: ToolRetryPolicy): string | undefined {
  const { maxAttempts, initialIntervalMs, backoff, maxIntervalMs, retryOn } = policy;
  if (maxAttempts !== undefined && !(Number.isInteger(maxAttempts) && maxAttempts >= 1 && maxAttempts <= MAX_TOOL_ATTEMPTS))
    return `maxAttempts must be a whole number from 1 to ${MAX_TOOL_ATTEMPTS}`;
  for (const [name, v] of Object.entries({ initialIntervalMs, maxIntervalMs }))
    if (v !== undefined && !(Number.isFinite(v) && v >= 0)) return `${name} must be a number of milliseconds, 0 or more`;
  if (backoff !== undefined && !(Number.isFinite(backoff) && backoff >= 1)) return 'backoff must be a number, 1 or more';
  if (retryOn !== undefined && typeof retryOn !== 'function') return 'retryOn must be a function';
  return undefined;
}

/** The wait before attempt `failedAttempt + 1`: initial × backoff^(n−1), at least `retryAfterMs`, at most maxIntervalMs. */
export function retryDelayMs(policy: ToolRetryPolicy | undefined, failedAttempt: number, retryAfterMs?: number): number {
  const p = resolvedPolicy(policy);
  const backedOff = p.initialIntervalMs * Math.pow(p.backoff, Math.max(0, failedAttempt - 1));
  return Math.round(Math.min(p.maxIntervalMs, Math.max(backedOff, retryAfterMs ?? 0)));
}

/** Whether `err` may be retried under `policy`: a ToolRetryableError, or what `retryOn` accepts (its own throw counts as no). */
export function isRetryable(policy: ToolRetryPolicy | undefined, err: unknown): boolean {
  if (err instanceof ToolRetryableError) return true;
  try {
    return policy?.retryOn?.(err) === true;
  } catch {
    return false;
  }
}

export function attemptErrorKind(err: unknown): AttemptErrorKind {
  if (err instanceof ToolRetryableError) return 'retryable';
  if (err instanceof ToolTimeoutError) return 'timeout';
  const marker = (err as { attemptKind?: unknown } | null)?.attemptKind;
  return typeof marker === 'string' && /^[a-z][a-z0-9_]{0,40}$/.test(marker) ? marker : 'error';
}

/** Attempts that count against `maxAttempts`: those that ended in an error. An interrupted one (its worker died) is Temporal's to retry. */
export function attemptsUsed(ledger: AttemptLedger): number {
  return ledger.errors.filter((e) => e.kind !== 'interrupted').length;
}

/**
 * The ledger a new activity attempt starts from: the one its predecessor left in its heartbeat details,
 * with the attempt that was running when it stopped marked `interrupted`; or, when none was left, one
 * that counts the earlier activity attempts as started (as `attempts` always did), with no errors known.
 */
export function resumeLedger(heartbeatDetails: unknown, activityAttempt: number, now: Date): AttemptLedger {
  const kept = ledgerIn(heartbeatDetails);
  if (!kept) return { started: Math.max(0, activityAttempt - 1), errors: [] };
  const errors = [...kept.errors];
  const last = errors[errors.length - 1]?.attempt ?? 0;
  if (kept.started > last)
    errors.push({ attempt: kept.started, error: 'the worker running this attempt stopped before it ended', kind: 'interrupted', at: now.toISOString() });
  return { started: kept.started, errors };
}

/** The ledger inside heartbeat details, if they hold a well-formed one. */
export function ledgerIn(details: unknown): AttemptLedger | undefined {
  const ledger = (details as { tool_attempts?: unknown } | null)?.tool_attempts as AttemptLedger | undefined;
  if (!ledger || typeof ledger !== 'object' || !Number.isInteger(ledger.started) || !Array.isArray(ledger.errors)) return undefined;
  const errors = ledger.errors.filter(
    (e): e is AttemptError =>
      !!e && typeof e === 'object' && Number.isInteger(e.attempt) && typeof e.error === 'string' && typeof e.kind === 'string' && typeof e.at === 'string',
  );
  return { started: ledger.started, errors };
}

/**
 * Heartbeat details that carry the ledger beside a tool's own progress, naming the call (as MCP
 * progress does): merged into a progress object (so readers of `{ tool, progress }` still find
 * theirs), else `{ tool_call_id, tool, tool_attempts, progress }`.
 */
export function detailsWithLedger(progress: unknown, ledger: AttemptLedger, call?: { tool_call_id: string; tool: string }): Record<string, unknown> {
  if (progress && typeof progress === 'object' && !Array.isArray(progress)) return { ...call, ...(progress as Record<string, unknown>), tool_attempts: ledger };
  return progress === undefined ? { ...call, tool_attempts: ledger } : { ...call, progress, tool_attempts: ledger };
}

export function clipError(message: string): string {
  const one = message.replace(/\s+/g, ' ').trim();
  return one.length > ATTEMPT_ERROR_MAX_CHARS ? `${one.slice(0, ATTEMPT_ERROR_MAX_CHARS - 1)}…` : one;
}

/**
 * `attempt_errors` added to a result's metadata, within `maxBytes` of JSON for the whole object (entry
 * metadata is small, see METADATA_MAX_BYTES): messages are shortened first, then middle attempts left
 * out (`attempt_errors_omitted` says how many); the first and the last are kept longest.
 */
export function withAttemptErrors(metadata: Record<string, unknown>, errors: readonly AttemptError[], maxBytes: number): Record<string, unknown> {
  if (!errors.length) return metadata;
  const size = (m: unknown) => Buffer.byteLength(JSON.stringify(m));
  for (const chars of [ATTEMPT_ERROR_MAX_CHARS, 120, 60]) {
    const clipped = errors.map((e) => ({ ...e, error: e.error.length > chars ? `${e.error.slice(0, chars - 1)}…` : e.error }));
    for (let keep = clipped.length; keep >= Math.min(2, clipped.length); keep--) {
      const shown = keep === clipped.length ? clipped : [...clipped.slice(0, keep - 1), clipped[clipped.length - 1]];
      const candidate = { ...metadata, attempt_errors: shown, ...(keep < clipped.length ? { attempt_errors_omitted: clipped.length - keep } : {}) };
      if (size(candidate) <= maxBytes) return candidate;
    }
  }
  return { ...metadata, attempt_errors_omitted: errors.length };
}

/** Every attempt as lines of a Failed result the model reads. */
export function describeAttempts(errors: readonly AttemptError[]): string {
  return errors.map((e) => `  attempt ${e.attempt} (${e.kind}, ${e.at}): ${e.error}`).join('\n');
}

/** Errno codes and statuses of passing network and file-system faults (for built-in tools' `retryOn`). */
const TRANSIENT_CODES = new Set([
  'ECONNRESET',
  'ECONNREFUSED',
  'ETIMEDOUT',
  'EPIPE',
  'EAI_AGAIN',
  'ENETUNREACH',
  'EHOSTUNREACH',
  'EAGAIN',
  'EBUSY',
  'EMFILE',
  'ENFILE',
]);

/** A passing fault by its marker, never its text: an errno code above, or an HTTP 429/5xx status (AWS SDK's `$metadata`). */
export function isTransientIoError(err: unknown, depth = 0): boolean {
  const e = err as { code?: unknown; $metadata?: { httpStatusCode?: unknown }; cause?: unknown } | null;
  if (!e || typeof e !== 'object') return false;
  if (typeof e.code === 'string' && TRANSIENT_CODES.has(e.code)) return true;
  const status = e.$metadata?.httpStatusCode;
  if (typeof status === 'number' && (status === 429 || status >= 500)) return true;
  return depth < 5 && e.cause !== undefined && isTransientIoError(e.cause, depth + 1);
}

function definedOnly<T extends object>(o: T): Partial<T> {
  return Object.fromEntries(Object.entries(o).filter(([, v]) => v !== undefined)) as Partial<T>;
}
