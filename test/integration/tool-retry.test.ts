/**
 * A tool's retry policy on a real worker: a tool that fails twice with ToolRetryableError, then
 * succeeds, gives one Success result with `attempts: 3` and both errors in its metadata; with its
 * attempts used up, one Failed result listing every attempt; an error that is not retryable fails at
 * once. Secrets in the errors are cut out like those in results.
 */
import { mkdtempSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { z } from 'zod';
import { ScriptedModelProvider, ToolRetryableError, defineTool } from '../../activities/index';
import type { ToolResultsEntry } from '../../agent/index';
import { formatEntry } from '../../cli/format';
import { describeState } from '../../client/state-view';
import { batchScript } from '../fixtures/scripts';
import { eventually, uniqueId, withWorker } from '../support/temporal';
import { useTestConnection } from '../support/test-connection';

const { t, taskQueue } = useTestConnection('tool-retry');
const secret = 'retry-canary-0123456789abcdef';

/** Runs of each call's body, by idempotency key (the same on every attempt of one call). */
const runs = new Map<string, number>();
const run = (key: string) => {
  const n = (runs.get(key) ?? 0) + 1;
  runs.set(key, n);
  return n;
};
const fast = { initialIntervalMs: 50, backoff: 2, maxIntervalMs: 200 };

const retryTools = [
  defineTool({
    name: 'flaky',
    description: 'Fails twice with a passing fault, then answers.',
    parameters: z.object({}),
    retry: { ...fast, maxAttempts: 3 },
    execute: (_args, ctx) => {
      const n = run(ctx.idempotencyKey);
      if (n <= 2) throw new ToolRetryableError(`service unavailable (503) on run ${n}, key ${secret}`);
      return { text: `answered on run ${n}`, metadata: { rows: 7 } };
    },
  }),
  defineTool({
    name: 'down',
    description: 'Always meets a passing fault.',
    parameters: z.object({}),
    retry: { ...fast, maxAttempts: 3 },
    execute: (_args, ctx) => {
      throw new ToolRetryableError(`still down on run ${run(ctx.idempotencyKey)}`);
    },
  }),
  defineTool({
    name: 'picky',
    description: 'A retryable fault, then one that is not.',
    parameters: z.object({}),
    retry: { ...fast, maxAttempts: 5 },
    execute: (_args, ctx) => {
      const n = run(ctx.idempotencyKey);
      if (n === 1) throw new ToolRetryableError('timeout of the service');
      throw new Error(`bad request on run ${n}`);
    },
  }),
  defineTool({
    name: 'errno',
    description: 'A plain error its retryOn accepts, then an answer.',
    parameters: z.object({}),
    retry: { ...fast, retryOn: (err) => (err as NodeJS.ErrnoException).code === 'ECONNRESET' },
    execute: (_args, ctx) => {
      const n = run(ctx.idempotencyKey);
      if (n === 1) throw Object.assign(new Error('socket hang up'), { code: 'ECONNRESET' });
      return 'connected';
    },
  }),
  defineTool({
    name: 'nothing',
    description: 'Returns no text at all (a broken tool).',
    parameters: z.object({}),
    execute: () => undefined as never,
  }),
  defineTool({
    name: 'patient',
    description: 'A passing fault, then a long wait before the next attempt.',
    parameters: z.object({}),
    retry: { initialIntervalMs: 600_000, maxIntervalMs: 600_000 },
    execute: (_args, ctx) => {
      throw new ToolRetryableError(`busy on run ${run(ctx.idempotencyKey)}`);
    },
  }),
];

beforeAll(() => {
  process.env.RETRY_TEST_API_KEY = secret; // a secret the worker knows (this process is the worker)
});
afterAll(() => {
  delete process.env.RETRY_TEST_API_KEY;
});

test('a tool whose output is not text fails its call at once, never its activity (so nothing is taken for an unknown outcome)', async () => {
  const agentId = uniqueId('nothing');
  const workspaceRoot = mkdtempSync(path.join(tmpdir(), 'lc-ws-'));
  const scripted = new ScriptedModelProvider({ batch: batchScript([{ name: 'nothing', args: {} }]) });
  const entry = await withWorker({ taskQueue, workspaceRoot, tools: retryTools, models: [scripted] }, async () => {
    await t.agents.start(agentId, { model: 'scripted:batch' });
    expect(await t.agents.ask(agentId, 'go')).toMatchObject({ status: 'answered' });
    return (await t.agents.history(agentId)).find((e) => e.kind === 'tool_results') as ToolResultsEntry;
  });
  expect(entry.results[0]).toMatchObject({ toolName: 'nothing', status: 'Failed', result: expect.stringMatching(/^nothing failed: /) });
  expect(entry.results[0].metadata?.attempts).toBeUndefined();
});

test('retried calls: Success after two passing faults, Failed when the attempts run out or the error is not retryable', async () => {
  const agentId = uniqueId('retry');
  const workspaceRoot = mkdtempSync(path.join(tmpdir(), 'lc-ws-'));
  const calls = ['flaky', 'down', 'picky', 'errno'].map((name) => ({ name, args: {} }));
  const scripted = new ScriptedModelProvider({ batch: batchScript(calls) });
  const entry = await withWorker({ taskQueue, workspaceRoot, tools: retryTools, models: [scripted] }, async () => {
    await t.agents.start(agentId, { model: 'scripted:batch' });
    expect(await t.agents.ask(agentId, 'go')).toMatchObject({ status: 'answered' });
    return (await t.agents.history(agentId)).find((e) => e.kind === 'tool_results') as ToolResultsEntry;
  });
  const [flaky, down, picky, errno] = entry.results;

  expect(flaky.status).toBe('Success');
  expect(flaky.result).toBe('answered on run 3');
  expect(flaky.metadata).toMatchObject({ rows: 7, attempts: 3 });
  const flakyErrors = flaky.metadata?.attempt_errors as Array<{ attempt: number; error: string; kind: string; at: string }>;
  expect(flakyErrors.map((e) => [e.attempt, e.kind])).toEqual([
    [1, 'retryable'],
    [2, 'retryable'],
  ]);
  expect(flakyErrors[0].error).toMatch(/^service unavailable \(503\) on run 1, key \[redacted \$RETRY_TEST_API_KEY\]$/);
  expect(flakyErrors[1].error).toMatch(/on run 2/);
  expect(Date.parse(flakyErrors[1].at)).toBeGreaterThanOrEqual(Date.parse(flakyErrors[0].at));

  expect(down.status).toBe('Failed');
  expect(down.metadata).toMatchObject({ attempts: 3 });
  expect((down.metadata?.attempt_errors as unknown[]).length).toBe(3);
  expect(down.result).toMatch(/^down failed: still down on run 3\nNot retried again: the policy allows 3 attempts\. Every attempt:\n/);
  for (const n of [1, 2, 3]) expect(down.result).toMatch(new RegExp(`attempt ${n} \\(retryable, [0-9T:.Z-]+\\): still down on run ${n}`));

  expect(picky.status).toBe('Failed');
  expect(picky.metadata).toMatchObject({ attempts: 2 }); // 5 allowed, but the second error is not retryable
  expect(picky.result).toMatch(/^picky failed: bad request on run 2\nNot retried again: it is not retryable/);
  expect((picky.metadata?.attempt_errors as Array<{ kind: string }>).map((e) => e.kind)).toEqual(['retryable', 'error']);

  expect(errno).toMatchObject({ status: 'Success', result: 'connected', metadata: { attempts: 2 } });

  expect(JSON.stringify(entry)).not.toContain(secret);
  // `history` shows the attempts and why the earlier ones failed.
  const lines = formatEntry(entry).join('\n');
  expect(lines).toMatch(/flaky Success \(3 attempts; 1: service unavailable/);
  expect(lines).toMatch(/down Failed \(3 attempts;/);
});

test('a call waiting to retry: `state` says so, with the last error; an interrupt ends the wait', async () => {
  const agentId = uniqueId('retry-wait');
  const scripted = new ScriptedModelProvider({ batch: batchScript([{ name: 'patient', args: {} }]) });
  await withWorker({ taskQueue, workspaceRoot: mkdtempSync(path.join(tmpdir(), 'lc-ws-')), tools: retryTools, models: [scripted] }, async () => {
    await t.agents.start(agentId, { model: 'scripted:batch' });
    const { inputSeq } = await t.agents.send(agentId, 'go');
    const line = await eventually(
      async () => {
        const text = describeState(
          agentId,
          await t.agents.state(agentId),
          {},
          (await t.agents.toolProgress(agentId)).map((p) => p.details),
        );
        return text.split('\n').find((l) => l.startsWith('retrying tool call:'));
      },
      30_000,
      'the retry wait to show in state',
    );
    expect(line).toBe('retrying tool call: call_0_0 patient, waiting for attempt 2 (1 failed; last, attempt 1: busy on run 1)');
    await expect(t.agents.interrupt(agentId)).resolves.toMatchObject({ interrupted: true });
    await expect(t.agents.waitForAnswer(agentId, inputSeq)).resolves.toMatchObject({ status: 'interrupted' });
    expect(runs.get(`${agentId}/call_0_0`)).toBe(1); // cancelled while waiting: never run again
  });
});
