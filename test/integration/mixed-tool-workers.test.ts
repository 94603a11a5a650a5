/**
 * Workers with different tool sets on one task queue: a worker that lacks a tool hands the call back
 * (a retryable activity failure) so that one that has it can run it; when no worker has it, the call ends
 * in a clear Failed result and the agent goes on. A tool the agent may not use fails at once.
 */
import { mkdtempSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { ApplicationFailure } from '@temporalio/common';
import { type ActivityInterceptorsFactory, NativeConnection } from '@temporalio/worker';
import { z } from 'zod';
import { ScriptedModelProvider, defineTool } from '../../activities/index';
import type { ScriptedToolCall } from '../../activities/models/scripted-model';
import type { ToolResultsEntry } from '../../agent/index';
import { MISSING_TOOL_FAILURE_TYPE } from '../../activities/tools/missing-tool';
import { callsInput, callsScript } from '../fixtures/calls-script';
import { createLivecontextWorker } from '../../worker/create-worker';
import { eventually, testAddress, uniqueId, withWorker, workflowBundle } from '../support/temporal';
import { useTestConnection } from '../support/test-connection';

const { t, taskQueue } = useTestConnection('mixed-tools');

const rareTool = defineTool({
  name: 'rare',
  description: 'Only some workers have it.',
  parameters: z.object({ n: z.number() }),
  execute: ({ n }) => `rare ${n} ran`,
});
const workspaceRoot = mkdtempSync(path.join(tmpdir(), 'lc-ws-'));
const models = [new ScriptedModelProvider({ calls: callsScript })];
const withRare = { taskQueue, workspaceRoot, models, tools: [rareTool], workerOptions: { identity: 'with-rare' } };
const withoutRare = { taskQueue, workspaceRoot, models, workerOptions: { identity: 'without-rare' } };

/** A worker without the tool that counts the calls it hands back. */
function countingWithoutRare(maxConcurrentActivityTaskPolls: number) {
  const handedBack = { count: 0 };
  const countHandBacks: ActivityInterceptorsFactory = () => ({
    inbound: {
      execute: (input, next) =>
        next(input).catch((err: unknown) => {
          if (err instanceof ApplicationFailure && err.type === MISSING_TOOL_FAILURE_TYPE) handedBack.count++;
          throw err;
        }),
    },
  });
  const options = { ...withoutRare, workerOptions: { identity: 'without-rare', maxConcurrentActivityTaskPolls, interceptors: { activity: [countHandBacks] } } };
  return { options, handedBack };
}

async function lastResults(agentId: string) {
  const entries = await t.agents.history(agentId);
  return (entries.filter((e) => e.kind === 'tool_results').pop() as ToolResultsEntry).results;
}

/** For each tool activity: the attempt that completed it, and the worker that ran that attempt (history keeps only the last). */
async function toolAttempts(agentId: string): Promise<Array<{ attempt: number; identity: string }>> {
  const raw = await t.agents.handle(agentId).fetchHistory();
  const scheduled = new Map<string, string>();
  const attempts: Array<{ attempt: number; identity: string }> = [];
  for (const e of raw.events ?? []) {
    const s = e.activityTaskScheduledEventAttributes;
    if (s) scheduled.set(String(e.eventId), s.activityType?.name ?? '');
    const started = e.activityTaskStartedEventAttributes;
    if (started && scheduled.get(String(started.scheduledEventId)) === 'executeTool')
      attempts.push({ attempt: started.attempt ?? 0, identity: started.identity ?? '' });
  }
  return attempts;
}

test('a call taken first by a worker without the tool is run by one that has it', async () => {
  const agentId = uniqueId('handoff');
  // Built up front, so that it can start polling the moment the other worker stops.
  const connection = await NativeConnection.connect({ address: testAddress() });
  const rareWorker = await createLivecontextWorker({ ...withRare, workflowBundle: workflowBundle(), connection });
  try {
    // Only the worker without the tool is up: it takes the call and hands it back.
    await withWorker(withoutRare, async () => {
      await t.agents.start(agentId, { model: 'scripted:calls', tools: ['rare'] });
      await t.agents.send(agentId, callsInput([{ name: 'rare', args: { n: 1 } }]));
      await eventually(
        async () => {
          const pending = (await t.agents.handle(agentId).describe()).raw.pendingActivities ?? [];
          return pending.some((a) => a.activityType?.name === 'executeTool' && (a.attempt ?? 0) >= 2);
        },
        30_000,
        'the first attempt to be handed back',
      );
    });
    // Then a worker with the tool comes up, as in a rolling deploy.
    await rareWorker.runUntil(async () => {
      await expect(t.agents.waitForAnswer(agentId, 1)).resolves.toMatchObject({ status: 'answered' });
      const [result] = await lastResults(agentId);
      expect(result).toMatchObject({ status: 'Success', result: 'rare 1 ran' });
      const [last] = await toolAttempts(agentId);
      expect(last.identity).toBe('with-rare');
      expect(last.attempt).toBeGreaterThanOrEqual(2);
      // The result says how many attempts it took: the attempt Temporal's history shows completing it.
      expect(result.metadata).toEqual({ attempts: last.attempt });
    });
  } finally {
    await connection.close();
  }
}, 120_000);

test('with both workers up, every call of the tool succeeds', async () => {
  const agentId = uniqueId('mixed');
  // Temporal hands each attempt to either worker; with the policy's 10 attempts a call fails only if the
  // worker without the tool takes all ten. (The agent names the tool in its allowance: a worker without
  // it offers it to no model, but the scripted model calls it anyway.)
  const without = countingWithoutRare(1);
  let calls = 0;
  await withWorker(withRare, () =>
    withWorker(without.options, async () => {
      await t.agents.start(agentId, { model: 'scripted:calls', tools: ['rare'] });
      // Call until the worker without the tool has taken (and handed back) two calls.
      for (let turn = 1; without.handedBack.count < 2 && turn <= 10; turn++) {
        const batch: ScriptedToolCall[] = Array.from({ length: 4 }, () => ({ name: 'rare', args: { n: calls++ } }));
        await expect(t.agents.ask(agentId, callsInput(batch))).resolves.toMatchObject({ status: 'answered' });
        const results = await lastResults(agentId);
        expect(results.map((r) => `${r.status}: ${r.result}`)).toEqual(batch.map((c) => `Success: rare ${(c.args as { n: number }).n} ran`));
      }
    }),
  );
  expect(without.handedBack.count).toBeGreaterThanOrEqual(2);
}, 180_000);

test('when no worker has a tool the agent names, the result is a clear Failed and the agent goes on', async () => {
  const agentId = uniqueId('nowhere');
  await withWorker(withoutRare, async () => {
    await t.agents.start(agentId, { model: 'scripted:calls', tools: ['rare', 'list_files', 'write_file'] });
    await expect(t.agents.ask(agentId, callsInput([{ name: 'rare', args: { n: 1 } }]))).resolves.toMatchObject({ status: 'answered' });
    const [result] = await lastResults(agentId);
    expect(result.status).toBe('Failed');
    expect(result.result).toMatch(
      /^Unknown tool "rare". Available tools: .*write_file.*\. \(No worker on this task queue offered it in 10 attempts over \d+ s; every worker on a task queue should register the same tools\.\)$/,
    );
    expect(await toolAttempts(agentId)).toEqual([{ attempt: 10, identity: 'without-rare' }]);
    expect(result.metadata).toEqual({ attempts: 10 });
    // The agent goes on.
    await expect(t.agents.ask(agentId, callsInput([{ name: 'list_files', args: {} }]))).resolves.toMatchObject({ status: 'answered' });
    expect(await lastResults(agentId)).toMatchObject([{ status: 'Success' }]);
  });
}, 120_000);

test('a tool the agent may not use fails at once, even if the worker has it', async () => {
  const agentId = uniqueId('disallowed');
  await withWorker(withRare, async () => {
    await t.agents.start(agentId, { model: 'scripted:calls', tools: ['write_file'] });
    await expect(t.agents.ask(agentId, callsInput([{ name: 'rare', args: { n: 1 } }]))).resolves.toMatchObject({ status: 'answered' });
    const results = await lastResults(agentId);
    expect(results).toMatchObject([{ status: 'Failed', result: 'Unknown tool "rare". Available tools: write_file.' }]);
    expect((await toolAttempts(agentId)).map((a) => a.attempt)).toEqual([1]);
    expect(results[0]).not.toHaveProperty('metadata'); // one attempt: nothing recorded
  });
});

test('a tool name the model made up fails at once, without waiting for other workers', async () => {
  const agentId = uniqueId('made-up');
  await withWorker(withRare, async () => {
    await t.agents.start(agentId, { model: 'scripted:calls' });
    await expect(t.agents.ask(agentId, callsInput([{ name: 'imaginary', args: {} }]))).resolves.toMatchObject({ status: 'answered' });
    const [result] = await lastResults(agentId);
    expect(result).toMatchObject({ status: 'Failed' });
    expect(result.result).toMatch(/^Unknown tool "imaginary"\. Available tools: .*rare.*\.$/);
    expect((await toolAttempts(agentId)).map((a) => a.attempt)).toEqual([1]);
  });
});
