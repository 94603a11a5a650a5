/**
 * Side effects exactly once (issue 29): a real HTTP service, written here, charges a card per
 * `Idempotency-Key` and counts its effects; it answers only after a wide window, and the worker (a child
 * process, one activity at a time) is SIGKILLed inside that window, right after each first effect — one
 * kill per call, more than 20 in all. Then: the service saw each key's effect exactly once; the calls of
 * the tool with `reconcile` all ended succeeded (reconciled, the body not run again); the calls of the
 * tool with neither reconcile nor idempotent left their agents waiting with the call marked unknown, and
 * `resolveToolCall` moved each on (done, or retry — whose second run the service answered from its key).
 * Time: about 2–3 minutes (a worker start per kill; Temporal notices each kill within the tool activity's
 * 10 s heartbeat timeout, those waits overlapping).
 */
import { mkdtempSync } from 'node:fs';
import { type IncomingMessage, type Server, type ServerResponse, createServer } from 'node:http';
import type { AddressInfo } from 'node:net';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { Worker } from '@temporalio/worker';
import type { AgentStatus, ToolCallResult, ToolResultsEntry } from '../../agent/index';
import { callsInput } from '../fixtures/calls-script';
import { type ChildWorker, startChildWorker } from '../support/child-worker';
import { maybeRecordHistory } from '../support/record-history';
import { connectTest, eventually, type TestContext, uniqueId, workflowBundle } from '../support/temporal';

/** How long the service holds its answer after the effect: the worker is killed well within it. */
const WINDOW_MS = 30_000;
const CHECKED_AGENTS = 11;
const PLAIN_AGENTS = 11;

/** The service: one charge per key; a repeated key gets the first answer, without a second effect. */
class ChargeService {
  readonly effects = new Map<string, number>();
  readonly answers = new Map<string, string>();
  replays = 0;
  onEffect: (key: string, workerPid: number) => void = () => undefined;
  /** A call of charge_later began (before its effect). */
  onStarted: (key: string, workerPid: number) => void = () => undefined;
  private server!: Server;
  url = '';

  async start(): Promise<void> {
    this.server = createServer((req, res) => void this.handle(req, res));
    await new Promise<void>((resolve) => this.server.listen(0, '127.0.0.1', resolve));
    this.url = `http://127.0.0.1:${(this.server.address() as AddressInfo).port}`;
  }

  async stop(): Promise<void> {
    this.server.closeAllConnections();
    await new Promise((resolve) => this.server.close(resolve));
  }

  private async handle(req: IncomingMessage, res: ServerResponse): Promise<void> {
    const chunks: Buffer[] = [];
    for await (const c of req) chunks.push(c as Buffer);
    const started = /^\/started\/(.+)$/.exec(req.url ?? '');
    if (req.method === 'POST' && started) {
      this.onStarted(decodeURIComponent(started[1]), Number(req.headers['x-worker-pid']));
      res.writeHead(200).end('ok');
      return;
    }
    const lookup = /^\/charges\/(.+)$/.exec(req.url ?? '');
    if (req.method === 'GET' && lookup) {
      const answer = this.answers.get(decodeURIComponent(lookup[1]));
      res.writeHead(answer ? 200 : 404).end(answer ?? 'no such charge');
      return;
    }
    const key = req.headers['idempotency-key'];
    if (req.method !== 'POST' || req.url !== '/charges' || typeof key !== 'string') {
      res.writeHead(400).end('POST /charges with an Idempotency-Key');
      return;
    }
    const first = this.answers.get(key);
    if (first) {
      this.replays++;
      res.writeHead(200).end(first);
      return;
    }
    const { cents } = JSON.parse(Buffer.concat(chunks).toString('utf8')) as { cents: number };
    this.effects.set(key, (this.effects.get(key) ?? 0) + 1);
    const answer = `charge #${this.answers.size + 1} of ${cents} cents`;
    this.answers.set(key, answer);
    this.onEffect(key, Number(req.headers['x-worker-pid']));
    // The wide window: the effect is done, the caller does not know yet.
    await new Promise((r) => setTimeout(r, WINDOW_MS).unref());
    if (!res.destroyed) res.writeHead(200).end(answer);
  }
}

const taskQueue = uniqueId('effects');
const workspaceRoot = mkdtempSync(path.join(tmpdir(), 'lc-ws-'));
const service = new ChargeService();
let t: TestContext;
let worker: ChildWorker | undefined;
let kills = 0;
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

test('a worker killed between the effect and its report, 22 times: each effect once; reconciled calls succeed, the others wait until resolved', async () => {
  // Kill the worker that made the effect — also one that made it while it was starting, before the test knew its pid.
  const cut = new Set<number>();
  service.onEffect = (_key, pid) => {
    cut.add(pid);
    restarting = restarting.then(async () => {
      while (worker && cut.has(worker.proc.pid!)) {
        await worker.kill('SIGKILL');
        kills++;
        worker = await startWorker();
      }
    });
  };
  worker = await startWorker();

  const checked = Array.from({ length: CHECKED_AGENTS }, (_, i) => uniqueId(`checked-${i}`));
  const plain = Array.from({ length: PLAIN_AGENTS }, (_, i) => uniqueId(`plain-${i}`));
  const inputs = new Map<string, number>();
  for (const [ids, tool] of [
    [checked, 'charge_checked'],
    [plain, 'charge'],
  ] as const) {
    for (const [i, agentId] of ids.entries()) {
      await t.agents.start(agentId, { model: 'scripted:calls' });
      const { inputSeq } = await t.agents.send(agentId, callsInput([{ name: tool, args: { cents: 100 + i } }]));
      inputs.set(agentId, inputSeq);
    }
  }

  // With reconcile: every call ends succeeded, found by asking the service, its body not run again.
  for (const agentId of checked) {
    await expect(t.agents.waitForAnswer(agentId, inputs.get(agentId)!)).resolves.toMatchObject({ status: 'answered' });
    const [result] = await toolResults(agentId);
    expect(result).toMatchObject({ toolName: 'charge_checked', status: 'Success', metadata: { reconciled: true, found_by: 'reconcile', attempts: 2 } });
    expect(result.result).toBe(`charged: ${service.answers.get(`${agentId}/${result.toolCallId}`)}`);
  }

  // Without: each agent waits with its call marked unknown; a resolution moves it on (done or retry, in turn).
  for (const [i, agentId] of plain.entries()) {
    const waiting = await eventually(
      async () => {
        const s = await t.agents.state(agentId);
        return s.blockedOn === 'unknown_outcome' ? s : undefined;
      },
      180_000,
      `${agentId} to wait on an unknown outcome`,
    );
    const unknown = waiting.unknownOutcomes![0];
    expect(unknown).toMatchObject({ toolName: 'charge', reason: expect.stringContaining('never reported') });
    expect(waiting.effects).toEqual([expect.objectContaining({ toolCallId: unknown.toolCallId, outcome: 'unknown' })]);
    const resolution = i % 2 === 0 ? { done: 'checked the statement: charged once', by: 'ops' } : { retry: true as const, by: 'ops' };
    const after: AgentStatus = await t.agents.resolveToolCall(agentId, { toolCallId: unknown.toolCallId, ...resolution });
    expect(after.unknownOutcomes).toBeUndefined();
    await expect(t.agents.resolveToolCall(agentId, { toolCallId: unknown.toolCallId, done: 'again' })).rejects.toMatchObject({
      cause: { type: 'ALREADY_RESOLVED', message: expect.stringMatching(/already (resolved|has its result)/) },
    });
    await expect(t.agents.waitForAnswer(agentId, inputs.get(agentId)!)).resolves.toMatchObject({ status: 'answered' });
    const [result] = await toolResults(agentId);
    if ('done' in resolution) {
      expect(result).toMatchObject({ status: 'Success', result: resolution.done, metadata: { resolved: 'done', resolved_by: 'ops' } });
    } else {
      // Run again as a fresh activity: the service recognised the key and answered without a second charge.
      expect(result).toMatchObject({ status: 'Success', metadata: { resolved: 'retry', resolved_by: 'ops' } });
      expect(result.result).toBe(`charged: ${service.answers.get(`${agentId}/${unknown.toolCallId}`)}`);
    }
  }

  // Each key's effect exactly once; every call was cut by a kill.
  await restarting;
  expect(service.effects.size).toBe(CHECKED_AGENTS + PLAIN_AGENTS);
  expect([...service.effects.values()].every((n) => n === 1)).toBe(true);
  expect(service.replays).toBe(Math.floor(PLAIN_AGENTS / 2)); // the retried ones
  expect(kills).toBeGreaterThanOrEqual(20);

  // The histories replay; one recording per scenario.
  const recordings: Array<[string, string]> = [
    [plain[0], 'effect-unknown-resolved-done_v1.json'],
    [plain[1], 'effect-unknown-resolved-retry_v1.json'],
    [checked[0], 'effect-reconciled_v1.json'],
  ];
  for (const [agentId, file] of recordings) {
    const history = await t.agents.handle(agentId).fetchHistory();
    await Worker.runReplayHistory({ workflowBundle: workflowBundle() }, history, agentId);
    await maybeRecordHistory(t.agents.handle(agentId), file);
  }
}, 480_000);

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
