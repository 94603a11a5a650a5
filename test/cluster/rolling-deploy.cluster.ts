/**
 * A rolling deploy under running agents. Agents are mid-conversation on worker code v1 (two worker
 * processes); v2 changes the agent workflow (a timer before each model call, guarded by `patched()`:
 * test/cluster/rolling/v2-interceptors.ts) and is rolled out one worker at a time while inputs keep coming.
 * Old agents finish on the path they started (no marker, no timer in their histories, though v2 workers
 * ran their later turns), new agents take the new path, no workflow task fails anywhere (a non-determinism
 * error would), no input is lost; every history replays on v2.
 *   1. `patched()` alone: new agents start only once no v1 worker is left (a v2-path history on a v1
 *      worker cannot replay: shown below).
 *   2. Worker Deployment versioning (AUTO_UPGRADE): v2 workers start beside v1 ones and get no task until
 *      v2 is made the current version; then every task goes to v2, and the v1 workers are stopped.
 */
import { spawn } from 'node:child_process';
import { writeFileSync } from 'node:fs';
import path from 'node:path';
import type { temporal } from '@temporalio/proto';
import { DeterminismViolationError } from '@temporalio/workflow';
import { bundleWorkflowCode, Worker } from '@temporalio/worker';
import { livecontextDataConverter } from '../../common/codec/data-converter';
import { guardedForWorkers } from '../../common/codec/undecodable-guard';
import { connectTest, eventually, type TestContext, testAddress, uniqueId, workflowBundle } from '../support/temporal';
import { clusterTempDir } from './cluster-processes';
import { ROLLING_PATCH } from './rolling/v2-interceptors';

const ROOT = path.resolve(__dirname, '../..');
let t: TestContext;
const bundles: Record<'v1' | 'v2' | 'unguarded', string> = { v1: '', v2: '', unguarded: '' };
const running: RollingWorker[] = [];

beforeAll(async () => {
  bundles.v1 = workflowBundle().codePath;
  const quiet = { info() {}, warn() {}, error: console.error, debug() {}, trace() {}, log() {} } as never;
  for (const [name, module] of [
    ['v2', './rolling/v2-interceptors'],
    ['unguarded', './rolling/v2-unguarded-interceptors'],
  ] as const) {
    const bundle = await bundleWorkflowCode({
      workflowsPath: require.resolve('../../workflows/index'),
      workflowInterceptorModules: [require.resolve(module)],
      logger: quiet,
    });
    bundles[name] = path.join(path.dirname(bundles.v1), `workflow-bundle-${name}.js`);
    writeFileSync(bundles[name], bundle.code);
  }
  t = await connectTest('unused');
});
afterAll(async () => {
  await Promise.all(running.map((w) => w.stop()));
  await t?.close();
});

interface RollingWorker {
  release: 'v1' | 'v2';
  stop(): Promise<void>;
}

/** A worker process on `release`'s code (graceful stop: SIGTERM, as a deploy tool does). */
async function startRollingWorker(o: { release: 'v1' | 'v2'; taskQueue: string; workspaceRoot: string; deploymentName?: string }): Promise<RollingWorker> {
  const proc = spawn(process.execPath, ['--import', 'tsx', path.join(__dirname, 'rolling/rolling-worker.ts')], {
    cwd: ROOT,
    env: {
      ...process.env,
      LIVECONTEXT_TEST_ADDRESS: testAddress(),
      TASK_QUEUE: o.taskQueue,
      WORKSPACE_ROOT: o.workspaceRoot,
      BUNDLE: bundles[o.release],
      RELEASE: o.release,
      ...(o.deploymentName ? { LIVECONTEXT_DEPLOYMENT_NAME: o.deploymentName, LIVECONTEXT_BUILD_ID: o.release } : {}),
    },
    stdio: ['ignore', 'pipe', 'pipe'],
  });
  let out = '';
  proc.stdout!.on('data', (d) => (out += d));
  proc.stderr!.on('data', (d) => (out += d));
  const exited = new Promise<void>((resolve) => proc.once('exit', () => resolve()));
  const ready = await eventually(() => out.includes('WORKER READY') || (proc.exitCode !== null && 'exited'), 60_000, `the ${o.release} worker to start`);
  if (ready === 'exited') throw new Error(`The ${o.release} worker exited early:\n${out}`);
  const worker: RollingWorker = {
    release: o.release,
    async stop() {
      if (proc.exitCode === null && proc.signalCode === null) proc.kill('SIGTERM');
      await exited;
      running.splice(running.indexOf(worker), 1);
    },
  };
  running.push(worker);
  return worker;
}

type HistoryEvent = temporal.api.history.v1.IHistoryEvent;

/** What a run's history shows about the path it took and where its tasks ran. */
async function inspect(agentId: string) {
  const events: HistoryEvent[] = [];
  for await (const wf of t.client.workflow.list({ query: `WorkflowId = '${agentId}'` })) {
    const history = await t.client.workflow.getHandle(agentId, wf.runId).fetchHistory();
    events.push(...(history.events ?? []));
    await Worker.runReplayHistory({ workflowBundle: { codePath: bundles.v2 }, dataConverter: guardedForWorkers(livecontextDataConverter()) }, history, agentId);
  }
  // livecontext records patches of its own: the v2 path is the marker of ROLLING_PATCH.
  const patchMarkers = events.filter(
    (e) =>
      e.markerRecordedEventAttributes?.markerName === 'core_patch' &&
      Object.values(e.markerRecordedEventAttributes.details ?? {}).some((p) =>
        (p.payloads ?? []).some((x) =>
          Buffer.from(x.data ?? [])
            .toString()
            .includes(ROLLING_PATCH),
        ),
      ),
  );
  return {
    events,
    newPath: patchMarkers.length > 0,
    timers: events.filter((e) => e.timerStartedEventAttributes).length,
    modelCalls: events.filter((e) => e.activityTaskScheduledEventAttributes?.activityType?.name === 'callModel').length,
    failedTasks: events.filter((e) => e.workflowTaskFailedEventAttributes).length,
    /** Worker identity of each workflow task, with when it started. */
    tasks: events
      .filter((e) => e.workflowTaskStartedEventAttributes)
      .map((e) => ({
        by: e.workflowTaskStartedEventAttributes!.identity ?? '',
        at: Number(e.eventTime?.seconds ?? 0) * 1000 + Math.floor((e.eventTime?.nanos ?? 0) / 1e6),
      })),
  };
}

/** Inputs in history, in order, of an agent. */
async function inputsOf(agentId: string, agents = t.agents) {
  return (await agents.history(agentId)).flatMap((e) => (e.kind === 'model_input' ? [e.sections[0].content] : []));
}

test('patched(): v2 rolled out one worker at a time under agents mid-conversation; old agents keep their path, new ones take v2', async () => {
  const taskQueue = uniqueId('rolling-patched');
  const c = await connectTest(taskQueue);
  try {
    const workspaceRoot = clusterTempDir('rolling-');
    const fleet = [
      await startRollingWorker({ release: 'v1', taskQueue, workspaceRoot }),
      await startRollingWorker({ release: 'v1', taskQueue, workspaceRoot }),
    ];
    const old = Array.from({ length: 6 }, (_, i) => `${taskQueue}-old-${i}`);
    await Promise.all(old.map((id) => c.agents.start(id, { model: 'scripted:loop', tools: ['record'] })));
    await Promise.all(
      old.map(async (id) => expect(await c.agents.ask(id, 'turn 1')).toMatchObject({ status: 'answered', answer: { contents: ['all done'] } })),
    );

    // Roll out: each v1 worker in turn stops (gracefully) and a v2 worker takes its place; inputs keep coming.
    const sent: string[] = ['turn 1'];
    const last: Record<string, number> = {};
    for (const [i] of fleet.entries()) {
      const input = `turn ${i + 2}`;
      sent.push(input);
      for (const id of old) last[id] = (await c.agents.send(id, input)).inputSeq; // mid-conversation as the worker goes
      await fleet[i].stop();
      fleet[i] = await startRollingWorker({ release: 'v2', taskQueue, workspaceRoot });
    }
    sent.push('turn 4');
    for (const id of old) last[id] = (await c.agents.send(id, 'turn 4')).inputSeq; // only v2 workers now
    for (const id of old) expect(await c.agents.waitForAnswer(id, last[id])).toMatchObject({ status: 'answered', answer: { contents: ['echo: turn 4'] } });

    // Every v1 worker is gone: new agents start, on v2's path.
    const fresh = Array.from({ length: 3 }, (_, i) => `${taskQueue}-new-${i}`);
    await Promise.all(fresh.map((id) => c.agents.start(id, { model: 'scripted:loop', tools: ['record'] })));
    for (const id of fresh) expect(await c.agents.ask(id, 'turn 1')).toMatchObject({ status: 'answered', answer: { contents: ['all done'] } });

    for (const id of old) {
      expect(await inputsOf(id, c.agents)).toEqual(sent); // none lost, none twice, in order
      const seen = await inspect(id);
      expect({ id, newPath: seen.newPath, timers: seen.timers, failedTasks: seen.failedTasks }).toEqual({ id, newPath: false, timers: 0, failedTasks: 0 });
      expect(seen.tasks.some((task) => task.by.startsWith('v2-'))).toBe(true); // v2 code ran it, on v1's path
    }
    for (const id of fresh) {
      const seen = await inspect(id);
      expect({ id, newPath: seen.newPath, failedTasks: seen.failedTasks }).toEqual({ id, newPath: true, failedTasks: 0 });
      expect(seen.timers).toBe(seen.modelCalls); // a timer before each model call: v2's path
      expect(seen.tasks.every((task) => task.by.startsWith('v2-'))).toBe(true);
    }

    // Why the guard and the order matter: an old history does not replay on v2 without the guard, and a
    // new-path history does not replay on v1 (so no new agent may start while a v1 worker can take its tasks).
    const replay = async (agentId: string, codePath: string) => {
      const wf = await c.client.workflow.getHandle(agentId).describe();
      return Worker.runReplayHistory(
        { workflowBundle: { codePath }, dataConverter: guardedForWorkers(livecontextDataConverter()) },
        await c.client.workflow.getHandle(agentId, wf.runId).fetchHistory(),
        agentId,
      );
    };
    await expect(replay(old[0], bundles.unguarded)).rejects.toBeInstanceOf(DeterminismViolationError);
    await expect(replay(fresh[0], bundles.v1)).rejects.toBeInstanceOf(DeterminismViolationError);
  } finally {
    await Promise.all([...running].map((w) => w.stop()));
    await c.close();
  }
});

test('Worker Deployment versioning: v2 workers wait beside v1 until v2 is current; then every task goes to v2 and v1 is drained', async () => {
  const taskQueue = uniqueId('rolling-versioned');
  const deploymentName = uniqueId('livecontext');
  const c = await connectTest(taskQueue);
  /** Makes `buildId` the deployment's current version, once the server has seen its workers poll. */
  const setCurrent = async (buildId: string) => {
    let last: unknown;
    await eventually(
      () =>
        c.client.workflowService.setWorkerDeploymentCurrentVersion({ namespace: 'default', deploymentName, buildId, identity: 'rolling-deploy-test' }).then(
          () => true,
          (err) => ((last = err), false),
        ),
      60_000,
      `${buildId} to become the current version (its workers polling)`,
    ).catch((err: Error) => {
      throw new Error(`${err.message} Last refusal: ${(last as Error)?.message}`);
    });
  };
  try {
    const workspaceRoot = clusterTempDir('rolling-');
    const v1 = [
      await startRollingWorker({ release: 'v1', taskQueue, workspaceRoot, deploymentName }),
      await startRollingWorker({ release: 'v1', taskQueue, workspaceRoot, deploymentName }),
    ];
    await setCurrent('v1');
    const old = Array.from({ length: 6 }, (_, i) => `${taskQueue}-old-${i}`);
    await Promise.all(old.map((id) => c.agents.start(id, { model: 'scripted:loop', tools: ['record'] })));
    await Promise.all(old.map(async (id) => expect(await c.agents.ask(id, 'turn 1')).toMatchObject({ status: 'answered' })));

    // v2 workers start one at a time beside v1; inputs sent meanwhile still run on v1 (v2 is not current).
    const v2 = [await startRollingWorker({ release: 'v2', taskQueue, workspaceRoot, deploymentName })];
    for (const id of old) expect(await c.agents.ask(id, 'turn 2')).toMatchObject({ status: 'answered', answer: { contents: ['echo: turn 2'] } });
    v2.push(await startRollingWorker({ release: 'v2', taskQueue, workspaceRoot, deploymentName }));
    const beforeSwitch = Date.now();
    await setCurrent('v2');
    const afterSwitch = Date.now();
    for (const w of v1) await w.stop(); // drained one at a time
    const last: Record<string, number> = {};
    for (const id of old) last[id] = (await c.agents.send(id, 'turn 3')).inputSeq;
    const fresh = Array.from({ length: 3 }, (_, i) => `${taskQueue}-new-${i}`);
    await Promise.all(fresh.map((id) => c.agents.start(id, { model: 'scripted:loop', tools: ['record'] })));
    for (const id of fresh) expect(await c.agents.ask(id, 'turn 1')).toMatchObject({ status: 'answered', answer: { contents: ['all done'] } });
    for (const id of old) expect(await c.agents.waitForAnswer(id, last[id])).toMatchObject({ status: 'answered', answer: { contents: ['echo: turn 3'] } });

    for (const id of old) {
      expect(await inputsOf(id, c.agents)).toEqual(['turn 1', 'turn 2', 'turn 3']);
      const seen = await inspect(id);
      expect({ id, newPath: seen.newPath, timers: seen.timers, failedTasks: seen.failedTasks }).toEqual({ id, newPath: false, timers: 0, failedTasks: 0 });
      // Before the switch only v1 ran its tasks (v2 workers were polling); after it, only v2.
      expect(seen.tasks.filter((task) => task.at < beforeSwitch).every((task) => task.by.startsWith('v1-'))).toBe(true);
      const after = seen.tasks.filter((task) => task.at > afterSwitch);
      expect(after.length).toBeGreaterThan(0);
      expect(after.every((task) => task.by.startsWith('v2-'))).toBe(true);
    }
    for (const id of fresh) {
      const seen = await inspect(id);
      expect({ id, newPath: seen.newPath, failedTasks: seen.failedTasks }).toEqual({ id, newPath: true, failedTasks: 0 });
      expect(seen.timers).toBe(seen.modelCalls);
      expect(seen.tasks.every((task) => task.by.startsWith('v2-'))).toBe(true);
    }
  } finally {
    await Promise.all([...running].map((w) => w.stop()));
    await c.close();
  }
});
