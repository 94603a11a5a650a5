import {
  DEFAULT_TOOL_RETRY,
  ToolRetryableError,
  ToolTimeoutError,
  attemptsUsed,
  detailsWithLedger,
  isRetryable,
  isTransientIoError,
  ledgerIn,
  policyProblem,
  resumeLedger,
  retryDelayMs,
  withAttemptErrors,
} from '../../activities/tools/tool-retry';
import { defineTool } from '../../activities/tools/define-tool';
import { METADATA_MAX_BYTES, checkMetadata } from '../../agent/index';
import { z } from 'zod';

describe('a tool retry policy: waits, what is retryable, and the attempts kept across workers', () => {
  test('waits grow by the backoff from the initial interval, up to the maximum; Retry-After lengthens one', () => {
    expect([1, 2, 3, 4, 5, 6].map((n) => retryDelayMs(undefined, n))).toEqual([1000, 2000, 4000, 8000, 16000, 30000]);
    const policy = { initialIntervalMs: 100, backoff: 3, maxIntervalMs: 1000 };
    expect([1, 2, 3, 4].map((n) => retryDelayMs(policy, n))).toEqual([100, 300, 900, 1000]);
    expect(retryDelayMs(policy, 1, 700)).toBe(700);
    expect(retryDelayMs(policy, 1, 60_000)).toBe(1000);
    expect(DEFAULT_TOOL_RETRY).toEqual({ maxAttempts: 3, initialIntervalMs: 1000, backoff: 2, maxIntervalMs: 30_000 });
  });

  test('only ToolRetryableError retries by default; retryOn adds errors, and one that throws says no', () => {
    expect(isRetryable(undefined, new ToolRetryableError('503'))).toBe(true);
    expect(isRetryable(undefined, new Error('bad input'))).toBe(false);
    expect(isRetryable(undefined, new ToolTimeoutError('slow'))).toBe(false);
    const onTimeouts = { retryOn: (e: unknown) => e instanceof ToolTimeoutError };
    expect(isRetryable(onTimeouts, new ToolTimeoutError('slow'))).toBe(true);
    expect(isRetryable(onTimeouts, new ToolRetryableError('503'))).toBe(true);
    expect(
      isRetryable(
        {
          retryOn: () => {
            throw new Error('oops');
          },
        },
        new Error('x'),
      ),
    ).toBe(false);
  });

  test('a bad policy is refused where the tool is defined', () => {
    expect(policyProblem({ maxAttempts: 0 })).toMatch(/maxAttempts/);
    expect(policyProblem({ backoff: 0.5 })).toMatch(/backoff/);
    expect(policyProblem({ initialIntervalMs: -1 })).toMatch(/initialIntervalMs/);
    expect(policyProblem({ maxAttempts: 5, backoff: 1.5 })).toBeUndefined();
    expect(() => defineTool({ name: 'x', description: 'x', parameters: z.object({}), execute: () => 'ok', retry: { maxAttempts: 1.5 } })).toThrow(
      /Tool "x": retry.maxAttempts must be a whole number/,
    );
  });

  test('the ledger in heartbeat details resumes on the next worker, the running attempt marked interrupted', () => {
    const now = new Date('2026-01-01T00:00:00Z');
    const ledger = { started: 2, errors: [{ attempt: 1, error: '503', kind: 'retryable' as const, at: '2025-12-31T23:59:59.000Z' }] };
    const details = detailsWithLedger({ tool: 'fetch', progress: 3 }, ledger);
    expect(details).toMatchObject({ tool: 'fetch', progress: 3 }); // readers of progress still find theirs
    const resumed = resumeLedger(JSON.parse(JSON.stringify(details)), 2, now);
    expect(resumed).toEqual({
      started: 2,
      errors: [ledger.errors[0], { attempt: 2, error: expect.stringMatching(/worker .* stopped/), kind: 'interrupted', at: now.toISOString() }],
    });
    expect(attemptsUsed(resumed)).toBe(1); // a worker's death is Temporal's retry, not the tool's
    // A ledger that ended on an error (the worker died while waiting to retry) resumes as it was.
    expect(resumeLedger({ tool_attempts: { ...ledger, started: 1 } }, 2, now)).toEqual({ started: 1, errors: ledger.errors });
    // No ledger (a first attempt heartbeats only progress): earlier activity attempts count as started.
    expect(resumeLedger({ tool: 'fetch', progress: 1 }, 3, now)).toEqual({ started: 2, errors: [] });
    expect(resumeLedger(undefined, 1, now)).toEqual({ started: 0, errors: [] });
    expect(ledgerIn({ tool_attempts: { started: 'x', errors: [] } })).toBeUndefined();
    expect(detailsWithLedger('half', ledger)).toEqual({ progress: 'half', tool_attempts: ledger });
  });

  test('attempt_errors fit the entry metadata limit: messages shortened, then middle attempts left out', () => {
    const errors = Array.from({ length: 20 }, (_, i) => ({
      attempt: i + 1,
      error: `fault ${i + 1}: ${'x'.repeat(290)}`,
      kind: 'retryable' as const,
      at: new Date(0).toISOString(),
    }));
    const few = withAttemptErrors({ rows: 1 }, errors.slice(0, 2), METADATA_MAX_BYTES);
    expect(few.attempt_errors).toEqual(errors.slice(0, 2));
    const many = withAttemptErrors({ rows: 1 }, errors, METADATA_MAX_BYTES - 64);
    expect(Buffer.byteLength(JSON.stringify(many))).toBeLessThanOrEqual(METADATA_MAX_BYTES - 64);
    const shown = many.attempt_errors as Array<{ attempt: number }>;
    expect(shown[0].attempt).toBe(1);
    expect(shown[shown.length - 1].attempt).toBe(20);
    expect(many.attempt_errors_omitted).toBe(20 - shown.length);
    expect(() => checkMetadata({ ...(many as Record<string, never>), attempts: 20 })).not.toThrow();
  });

  test('built-in tools retry on passing I/O faults by their markers, not their text', () => {
    expect(isTransientIoError(Object.assign(new Error('x'), { code: 'ECONNRESET' }))).toBe(true);
    expect(isTransientIoError({ $metadata: { httpStatusCode: 503 } })).toBe(true);
    expect(isTransientIoError(new Error('outer', { cause: Object.assign(new Error('inner'), { code: 'EAI_AGAIN' }) }))).toBe(true);
    expect(isTransientIoError(Object.assign(new Error('x'), { code: 'ENOENT' }))).toBe(false);
    expect(isTransientIoError({ $metadata: { httpStatusCode: 404 } })).toBe(false);
    expect(isTransientIoError(new Error('ECONNRESET in the text only'))).toBe(false);
  });
});
