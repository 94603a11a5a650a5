/**
 * Side effects exactly once (issue 29), the cases beside the chaos suite's effects scenario (test/chaos/
 * effects-chaos.ts, which kills the worker between the effect and its report in each of 22 calls and
 * carries the claim): a reconcile that finds no effect runs the body once; one that fails leaves
 * the call unknown until resolved. The service is test/support/charge-service.ts, the tools are in
 * test/fixtures/effects-worker.ts; the worker (a child process) is SIGKILLed once per call.
 */
import { mkdtempSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import type { ToolCallResult, ToolResultsEntry } from '../../agent/index';
import { callsInput } from '../fixtures/calls-script';
import { ChargeService } from '../support/charge-service';
import { type ChildWorker, startChildWorker } from '../support/child-worker';
import { connectTest, eventually, type TestContext, uniqueId } from '../support/temporal';

const taskQueue = uniqueId('effects');
const workspaceRoot = mkdtempSync(path.join(tmpdir(), 'lc-ws-'));
const service = new ChargeService();
let t: TestContext;
let worker: ChildWorker | undefined;
/** Kills and restarts, one after another. */
let restarting: Promise<void> = Promise.resolve();

const startWorker = () => startChildWorker({ fixture: 'effects-worker.ts', taskQueue, workspaceRoot, extraEnv: { EFFECT_SERVICE_URL: service.url } });

beforeAll(async () => {
  t = await connectTest(taskQueue);
  await service.start();
});
afterAll(async () => {
  await worker?.kill('SIGKILL');
  await service.stop();
  await t?.close();
});

test('a reconcile that finds no effect runs the body (once); one that fails leaves the call unknown', async () => {
  // Kill the worker running each call once: charge_later before its effect, charge_unsure after it.
  const cutOnce = new Set<string>();
  const killOnce = (key: string, pid: number) => {
    if (cutOnce.has(key)) return;
    cutOnce.add(key);
    restarting = restarting.then(async () => {
      if (worker?.proc.pid !== pid) return;
      await worker.kill('SIGKILL');
      worker = await startWorker();
    });
  };
  service.onStarted = killOnce;
  service.onEffect = killOnce;
  worker ??= await startWorker();
  const later = uniqueId('later');
  const unsure = uniqueId('unsure');
  await t.agents.start(later, { model: 'scripted:calls' });
  await t.agents.start(unsure, { model: 'scripted:calls' });
  const a = await t.agents.send(later, callsInput([{ name: 'charge_later', args: { cents: 700 } }]));
  const b = await t.agents.send(unsure, callsInput([{ name: 'charge_unsure', args: { cents: 800 } }]));

  await expect(t.agents.waitForAnswer(later, a.inputSeq)).resolves.toMatchObject({ status: 'answered' });
  const [ran] = await toolResults(later);
  expect(ran).toMatchObject({ toolName: 'charge_later', status: 'Success', metadata: { reconciled: 'not_done' } });
  expect(service.effects.get(`${later}/${ran.toolCallId}`)).toBe(1);

  const waiting = await eventually(
    async () => {
      const s = await t.agents.state(unsure);
      return s.blockedOn === 'unknown_outcome' ? s : undefined;
    },
    180_000,
    `${unsure} to wait on an unknown outcome`,
  );
  const unknown = waiting.unknownOutcomes![0];
  expect(unknown).toMatchObject({ toolName: 'charge_unsure', reason: expect.stringContaining('its reconcile failed: the ledger of charges is down') });
  await t.agents.resolveToolCall(unsure, { toolCallId: unknown.toolCallId, failed: 'refunded by hand', by: 'ops' });
  await expect(t.agents.waitForAnswer(unsure, b.inputSeq)).resolves.toMatchObject({ status: 'answered' });
  const [resolved] = await toolResults(unsure);
  expect(resolved).toMatchObject({
    status: 'Failed',
    result: expect.stringContaining('resolved as failed by ops: refunded by hand'),
    metadata: { resolved: 'failed', resolved_by: 'ops' },
  });
  expect(service.effects.get(`${unsure}/${unknown.toolCallId}`)).toBe(1);
  await restarting;
}, 300_000);

async function toolResults(agentId: string): Promise<ToolCallResult[]> {
  const entry = (await t.agents.history(agentId)).find((e): e is ToolResultsEntry => e.kind === 'tool_results');
  return entry?.results ?? [];
}
