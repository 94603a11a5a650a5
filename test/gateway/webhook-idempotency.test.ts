/**
 * A webhook delivered at least once is taken exactly once over REST: the same delivery (one
 * Idempotency-Key) sent five times at once, again after the worker is SIGKILLed, and five times while no
 * worker runs, is one input, one inputSeq and one turn. The gateway keeps nothing: the agent remembers
 * the key. On the real dev server, with a worker in a child process.
 */
import { mkdtempSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import type { HistoryEntry } from '../../agent/index';
import { type ChildWorker, startChildWorker } from '../support/child-worker';
import { startTestGateway, type TestGateway } from '../support/gateway';
import { connectTest, type TestContext, uniqueId } from '../support/temporal';
import { answerText } from './rest-support';

let t: TestContext;
let gw: TestGateway;
let worker: ChildWorker | undefined;
const taskQueue = uniqueId('webhooks');
const env = { taskQueue, workspaceRoot: mkdtempSync(path.join(tmpdir(), 'lc-ws-')), controlDir: mkdtempSync(path.join(tmpdir(), 'lc-ctl-')) };
beforeAll(async () => {
  t = await connectTest(taskQueue);
  gw = await startTestGateway(t.agents);
});
afterAll(async () => {
  await gw?.close();
  await worker?.kill();
  await t?.close();
});

/** One delivery, as a webhook sender makes it: its event id in the Idempotency-Key header. */
const deliver = (agentId: string, key: string, text: string, query = '') =>
  gw.request('POST', `/agents/${agentId}/input${query}`, { text, sender: 'billing' }, { headers: { 'Idempotency-Key': key } });
const fiveTimes = <T>(send: () => Promise<T>) => Promise.all(Array.from({ length: 5 }, send));

/** The turns that answered `text`: its inputs and the model outputs that followed each. */
function turnsFor(history: HistoryEntry[], text: string) {
  const inputs = history.filter((e) => e.kind === 'model_input' && e.sections.some((s) => s.content === text));
  const answers = history.filter((e) => e.kind === 'model_output' && e.contents.join('') === `echo: ${text}`);
  return { inputs: inputs.map((e) => e.kind === 'model_input' && e.inputSeq), answers: answers.length };
}

test('the same webhook five times at once, after a worker SIGKILL, and while no worker runs: one inputSeq, one turn', async () => {
  worker = await startChildWorker(env);
  const agentId = uniqueId('shop');
  expect(await gw.request('POST', '/agents', { agentId, model: 'scripted:echo' })).toMatchObject({ status: 201 });

  const first = await fiveTimes(() => deliver(agentId, 'evt_42', 'order 42 paid'));
  expect(first.map((r) => r.status)).toEqual([202, 202, 202, 202, 202]);
  expect(new Set(first.map((r) => r.body.inputSeq))).toEqual(new Set([1]));
  expect(first.filter((r) => !r.body.duplicate)).toHaveLength(1); // taken once; the other four were told so
  // A sender that waits for the answer gets the first delivery's, whichever delivery it made.
  const waited = await fiveTimes(() => deliver(agentId, 'evt_42', 'order 42 paid', '?wait=1'));
  for (const r of waited) {
    expect(r).toMatchObject({ status: 200, body: { inputSeq: 1, duplicate: true, outcome: { status: 'answered' } } });
    expect(answerText(r.body.outcome)).toBe('echo: order 42 paid');
  }

  await worker.kill('SIGKILL');
  worker = await startChildWorker(env);
  const afterKill = await fiveTimes(() => deliver(agentId, 'evt_42', 'order 42 paid'));
  for (const r of afterKill) expect(r).toMatchObject({ status: 202, body: { inputSeq: 1, duplicate: true } });
  // The key in the body is the same key.
  expect(await gw.request('POST', `/agents/${agentId}/input`, { text: 'order 42 paid', idempotencyKey: 'evt_42' })).toMatchObject({
    status: 202,
    body: { inputSeq: 1, duplicate: true },
  });

  // A new event delivered five times while the worker is down: the deliveries wait, then one is taken.
  await worker.kill('SIGKILL');
  const whileDown = fiveTimes(() => deliver(agentId, 'evt_43', 'order 43 paid'));
  await new Promise((r) => setTimeout(r, 1_000));
  worker = await startChildWorker(env);
  const down = await whileDown;
  expect(down.map((r) => r.status)).toEqual([202, 202, 202, 202, 202]);
  expect(new Set(down.map((r) => r.body.inputSeq))).toEqual(new Set([2]));
  expect(down.filter((r) => !r.body.duplicate)).toHaveLength(1);
  expect(answerText((await gw.request('GET', `/agents/${agentId}/answers/2`)).body)).toBe('echo: order 43 paid');

  const history = (await gw.request('GET', `/agents/${agentId}/history`)).body.entries as HistoryEntry[];
  expect(turnsFor(history, 'order 42 paid')).toEqual({ inputs: [1], answers: 1 });
  expect(turnsFor(history, 'order 43 paid')).toEqual({ inputs: [2], answers: 1 });
  expect((await gw.request('GET', `/agents/${agentId}`)).body).toMatchObject({ nextInputSeq: 3, usage: { modelCalls: 2 } });
}, 180_000);
