/**
 * Chaos across the topology: 20 agents in tool loops (a streaming OpenAI-wire fake asks for two `record`
 * calls per input), their inputs arriving through both gateway processes, while one at a time a livecontext
 * worker process, the history service, the matching service and the frontend are SIGKILLed and restarted.
 * A sender whose request fails (a gateway cannot reach a dead frontend) sends again, with the same
 * idempotency key, through the other gateway, as a webhook sender would. What must all be zero: inputs lost,
 * inputs duplicated, completed tool calls scheduled again by the agent, replay failures; every agent answers.
 * The figures go to the results folder test-cluster.mjs prints.
 */
import { writeFileSync } from 'node:fs';
import path from 'node:path';
import type { ChildWorker } from '../support/child-worker';
import { type FakeOpenAIServer, startFakeOpenAIServer } from '../support/fake-openai-server';
import { addAgentDamage, noDamage, toolLoopResponse } from '../support/tool-loop-chaos';
import { connectTest, type TestContext, uniqueId, workflowBundle } from '../support/temporal';
import { type GatewayProcess, killService, restartService, type ServiceName, startGatewayProcess, startWorkerProcesses } from './cluster-processes';

const AGENTS = 20;
const taskQueue = uniqueId('cluster-chaos');
let t: TestContext;
let fake: FakeOpenAIServer;
let workers: ChildWorker[] = [];
let gateways: GatewayProcess[] = [];
let workspaceRoot: string;
let startWorker: () => Promise<ChildWorker>;

beforeAll(async () => {
  t = await connectTest(taskQueue);
  fake = await startFakeOpenAIServer();
  fake.respond = toolLoopResponse;
  const started = await startWorkerProcesses(2, taskQueue, { OPENAI_API_KEY: fake.apiKey, OPENAI_BASE_URL: `${fake.url}/v1` });
  ({ workers, start: startWorker } = started);
  workspaceRoot = started.env.workspaceRoot;
  gateways = await Promise.all([startGatewayProcess(taskQueue), startGatewayProcess(taskQueue)]);
});

afterAll(async () => {
  await Promise.all([...gateways.map((g) => g.stop()), ...workers.map((w) => w.kill('SIGKILL'))]);
  await fake?.close();
  await t?.close();
});

const sleep = (ms: number) => new Promise((r) => setTimeout(r, ms));

/** Retries `fn` (any failure) every 500 ms for up to `ms`. */
async function retrying<T>(fn: () => Promise<T>, ms = 180_000): Promise<T> {
  const deadline = Date.now() + ms;
  for (;;) {
    try {
      return await fn();
    } catch (err) {
      if (Date.now() > deadline) throw err;
      await sleep(500);
    }
  }
}

test('SIGKILL a worker, history, matching and the frontend in turn under 20 agents: nothing lost, doubled or re-run', async () => {
  const startedAt = Date.now();
  const ids = Array.from({ length: AGENTS }, (_, i) => `${taskQueue}-agent-${i}`);
  await Promise.all(ids.map((id) => t.agents.start(id, { model: 'openai:gpt-4.1-mini', tools: ['record'] })));
  const sent: Record<string, string[]> = Object.fromEntries(ids.map((id) => [id, []]));
  const lastSeq: Record<string, number> = {};
  let resends = 0;
  /** The longest a send took to be accepted, by round: a send into an outage waits it out. */
  const slowestSendMs: number[] = [];

  /** One round: an input per agent, through gateway (agent + round) % 2, again through the other until accepted. */
  const sendRound = (round: number) =>
    Promise.all(
      ids.map(async (id, i) => {
        const text = `${id} input ${round}`;
        sent[id].push(text);
        const began = Date.now();
        for (let attempt = 0; ; attempt++) {
          const g = gateways[(i + round + attempt) % 2];
          const res = await g
            .request('POST', `/agents/${id}/input`, { text, idempotencyKey: `${id}/${round}` })
            .catch((err: Error) => ({ status: 0, body: err.message }));
          if (res.status === 202) {
            lastSeq[id] = res.body.inputSeq;
            slowestSendMs[round] = Math.max(slowestSendMs[round] ?? 0, Date.now() - began);
            return;
          }
          if (attempt > 400) throw new Error(`Input ${text} not accepted: ${res.status} ${JSON.stringify(res.body)}`);
          resends++;
          await sleep(500);
        }
      }),
    );

  const kills: string[] = [];
  await sendRound(0);
  // Each: what goes down, how it is killed, how it comes back. Inputs are sent while it is down.
  const crashes: Array<{ what: string; kill: () => Promise<void>; restart: () => Promise<void> }> = [
    { what: 'livecontext worker', kill: () => workers[0].kill('SIGKILL'), restart: async () => void (workers[0] = await startWorker()) },
    ...(['history', 'matching', 'frontend'] as ServiceName[]).map((name) => ({
      what: `${name} service`,
      kill: () => killService(name),
      restart: async () => restartService(name),
    })),
  ];
  for (const [round, crash] of crashes.entries()) {
    await sleep(1500); // agents mid tool loop
    await crash.kill();
    kills.push(crash.what);
    const sending = sendRound(round + 1);
    await sleep(3000);
    await crash.restart();
    await sending;
  }

  const finished = await Promise.all(
    ids.map((id) =>
      retrying(() => t.agents.waitForAnswer(id, lastSeq[id])).then(
        (r) => r.status === 'answered',
        () => false,
      ),
    ),
  );

  const damage = noDamage();
  for (const id of ids) {
    const history = await retrying(() => t.agents.history(id));
    await addAgentDamage(damage, { client: t.client, id, history, sent: sent[id], workspaceRoot, workflowBundle: workflowBundle() });
  }

  const figures = {
    agents: AGENTS,
    agentsFinished: finished.filter(Boolean).length,
    inputsSent: ids.length * (crashes.length + 1),
    inputsLost: damage.lost,
    inputsDuplicated: damage.duplicated,
    sendsRepeatedAfterAFailure: resends,
    slowestSendMsByRound: Object.fromEntries(slowestSendMs.map((ms, r) => [r === 0 ? 'before' : `while ${kills[r - 1]} down`, ms])),
    toolCallsCompleted: damage.completed,
    completedToolCallsReExecuted: damage.reExecuted,
    toolCallsRetriedAfterWorkerDeath: damage.retried,
    workflowRunsReplayed: damage.runs,
    replayFailures: damage.replayFailures,
    killed: kills.join(', '),
    modelRequests: fake.requests.length,
    seconds: Math.round((Date.now() - startedAt) / 1000),
  };
  if (process.env.LIVECONTEXT_CLUSTER_RESULTS)
    writeFileSync(path.join(process.env.LIVECONTEXT_CLUSTER_RESULTS, 'topology-chaos.json'), `${JSON.stringify(figures, null, 2)}\n`);
  console.log(`topology chaos: ${JSON.stringify(figures)}`);

  expect(figures).toMatchObject({ agentsFinished: AGENTS, inputsLost: 0, inputsDuplicated: 0, completedToolCallsReExecuted: 0, replayFailures: 0 });
  expect(damage.completed).toBeGreaterThanOrEqual(AGENTS * (crashes.length + 1) * 2);
  expect(kills).toHaveLength(4);
  // The inputs sent while the frontend was down waited for it (the gateways' Temporal clients retry): they really crossed the outage.
  expect(slowestSendMs[4]).toBeGreaterThan(1000);
});
