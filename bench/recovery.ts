/**
 * recovery: a 500-turn workflow (instant model) loses its worker process to SIGKILL — no graceful
 * shutdown, its workflow cache and (for livecontext) its entry cache gone — and a new worker process is
 * started. Measured: from the new process's spawn to the answer of one input sent at once. That covers
 * Node start-up, loading the prebuilt bundle, connecting, Temporal noticing the dead worker's sticky
 * queue, and replaying the whole run's history.
 */
import { mkdtempSync, writeFileSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { Worker } from '@temporalio/worker';
import {
  type Bench,
  type BenchResult,
  agentClient,
  baselineClient,
  baselineWorker,
  historyBytesAllRuns,
  livecontextWorker,
  percentile,
  progress,
  ratio,
  round,
  runTurns,
  uniqueId,
} from './support';
import { MID_TOOL_METHOD, measureMidTool, midToolRows } from './recovery-mid-tool';
import { SLOW_TOOL_MS } from './slow-tool';
import { type WorkerProcess, spawnWorker } from './worker-spawn';

const TURNS = 500;
const REPEAT = 3;
/**
 * Both sides' workflow task timeout. The new process replays the whole 500-turn run (~7,500 events, one
 * run because the bench raises Temporal's continue-as-new suggestion) in one workflow task, which can
 * take longer than Temporal's default 10 s on 2 cores; then the task times out and is retried forever.
 */
const WORKFLOW_TASK_TIMEOUT = '60 seconds' as const;

async function kill(w: WorkerProcess): Promise<void> {
  if (w.proc.exitCode !== null || w.proc.signalCode !== null) return;
  const exited = new Promise((r) => w.proc.once('exit', r));
  w.proc.kill('SIGKILL');
  await exited;
}

/**
 * A first worker process takes a warm-up turn (so the run is cached and sticky there); then REPEAT
 * times: SIGKILL the current process, spawn a new one, send one input at once and time spawn → answer.
 */
async function measure(label: string, spawnOne: () => WorkerProcess, ask: (text: string) => Promise<{ status: string }>) {
  const samples: number[] = [];
  const readyMs: number[] = [];
  let current = spawnOne();
  try {
    await current.ready;
    await ask('warm-up');
    for (let i = 0; i < REPEAT; i++) {
      await kill(current);
      const t0 = performance.now();
      current = spawnOne();
      void current.ready.then(
        () => readyMs.push(round(performance.now() - t0)),
        () => undefined,
      );
      const outcome = await ask(`after recovery ${i}`);
      samples.push(round(performance.now() - t0));
      if (outcome.status !== 'answered') throw new Error(`${label}: the turn after recovery ended ${outcome.status}`);
    }
  } finally {
    await kill(current);
  }
  progress(`recovery: ${label} ${samples.join(', ')} ms (process ready after ${readyMs.join(', ')} ms)`);
  return { turnsBefore: TURNS, spawnToAnswerMs: percentile(samples, 50), samplesMs: samples, spawnToReadyMs: readyMs };
}

/**
 * The mid-tool SIGKILL (recovery-mid-tool.ts) on both sides, fresh workflows on task queues of their own.
 * `--recovery-part mid-tool` runs only this part, `--recovery-part restart` only the 500-turn restart.
 */
async function midTool(bench: Bench, bundles: { livecontext: string; baseline: string }): Promise<BenchResult> {
  const lcQueue = uniqueId('rec-mid-lc');
  const blQueue = uniqueId('rec-mid-bl');
  const agents = agentClient(bench, lcQueue);
  const baseline = baselineClient(bench, blQueue);
  const agentId = uniqueId('rec-mid-agent');
  const baselineId = uniqueId('rec-mid-baseline');
  await agents.start(agentId, { model: 'slowtool:call' });
  await baseline.start(baselineId, { modelCallsPerTurn: 2, toolCallsPerTurn: 1, toolMs: SLOW_TOOL_MS });
  const lc = await measureMidTool(
    'livecontext',
    (env) => spawnWorker(bench, 'livecontext', lcQueue, bundles.livecontext, { env }),
    (text) => agents.ask(agentId, text),
    () => bench.client.workflow.getHandle(agentId).fetchHistory(),
  );
  const bl = await measureMidTool(
    'baseline',
    (env) => spawnWorker(bench, 'baseline', blQueue, bundles.baseline, { env }),
    (text) => baseline.ask(baselineId, text),
    () => bench.baselineClient.workflow.getHandle(baselineId).fetchHistory(),
  );
  return { figures: { method: MID_TOOL_METHOD, livecontext: lc, baseline: bl }, rows: midToolRows(lc, bl) };
}

function prebuiltBundles(bench: Bench): { livecontext: string; baseline: string } {
  const dir = mkdtempSync(path.join(os.tmpdir(), 'livecontext-bench-bundles-'));
  const bundles = { livecontext: path.join(dir, 'livecontext.js'), baseline: path.join(dir, 'baseline.js') };
  writeFileSync(bundles.livecontext, bench.livecontextBundle.code);
  writeFileSync(bundles.baseline, bench.baselineBundle.code);
  return bundles;
}

export async function recovery(bench: Bench): Promise<BenchResult> {
  const part = bench.options?.['recovery-part'];
  if (part !== undefined && part !== 'mid-tool' && part !== 'restart') throw new Error(`--recovery-part ${part}: give mid-tool or restart`);
  // The new processes load prebuilt bundles, as a deployed worker would.
  const bundles = prebuiltBundles(bench);
  const mid = part === 'restart' ? undefined : await midTool(bench, bundles);
  if (part === 'mid-tool') return mid!;
  const restart = await restartAfterTurns(bench, bundles);
  return mid ? { figures: { ...restart.figures, midTool: mid.figures }, rows: [...restart.rows, ...mid.rows] } : restart;
}

async function restartAfterTurns(bench: Bench, bundles: { livecontext: string; baseline: string }): Promise<BenchResult> {
  const lcQueue = uniqueId('rec-lc');
  const blQueue = uniqueId('rec-bl');
  const agents = agentClient(bench, lcQueue, { workflowTaskTimeout: WORKFLOW_TASK_TIMEOUT });
  const baseline = baselineClient(bench, blQueue);
  const agentId = uniqueId('rec-agent');
  const baselineId = uniqueId('rec-baseline');
  const lcWorker = () => livecontextWorker(bench, lcQueue);
  const blWorker = () => baselineWorker(bench, blQueue);

  // Both histories are built at once (not timed), each on a first worker that is then shut down.
  await Promise.all([
    (await lcWorker()).runUntil(async () => {
      await agents.start(agentId, { model: 'scripted:instant' }); // default history budget
      await runTurns('recovery: livecontext build', TURNS, (text) => agents.ask(agentId, text));
    }),
    (await blWorker()).runUntil(async () => {
      await baseline.start(baselineId, { modelCallsPerTurn: 1, toolCallsPerTurn: 0 }, { workflowTaskTimeout: WORKFLOW_TASK_TIMEOUT });
      await runTurns('recovery: baseline build', TURNS, (text) => baseline.ask(baselineId, text));
    }),
  ]);
  const lcHistory = await historyBytesAllRuns(bench.client, agentId);
  const blHistory = await historyBytesAllRuns(bench.baselineClient, baselineId);

  // The replay part alone: the run's history replayed in this process (median of REPEAT), the sides
  // taking turns (livecontext, baseline, livecontext, …) so a change in the machine's load falls on both,
  // beside the CPU time of this process over each replay (all its threads: the SDK's core and the workflow
  // code), which a loaded machine does not stretch as it stretches wall time.
  const histories = {
    livecontext: await bench.client.workflow.getHandle(agentId).fetchHistory(),
    baseline: await bench.baselineClient.workflow.getHandle(baselineId).fetchHistory(),
  };
  const samples = { livecontext: { ms: [] as number[], cpuMs: [] as number[] }, baseline: { ms: [] as number[], cpuMs: [] as number[] } };
  for (let i = 0; i < REPEAT; i++) {
    for (const [side, workflowBundle, id] of [
      ['livecontext', bench.livecontextBundle, agentId],
      ['baseline', bench.baselineBundle, baselineId],
    ] as const) {
      const cpu0 = process.cpuUsage();
      const t0 = performance.now();
      await Worker.runReplayHistory({ workflowBundle, replayName: `bench-replay-${id}-${i}` }, histories[side]);
      const cpu = process.cpuUsage(cpu0);
      samples[side].ms.push(round(performance.now() - t0));
      samples[side].cpuMs.push(round((cpu.user + cpu.system) / 1000));
    }
  }
  const replay = { livecontext: percentile(samples.livecontext.ms, 50), baseline: percentile(samples.baseline.ms, 50) };
  const replayCpu = { livecontext: percentile(samples.livecontext.cpuMs, 50), baseline: percentile(samples.baseline.cpuMs, 50) };
  progress(
    `recovery: replay of the ${TURNS}-turn run ${replay.livecontext} ms, CPU ${replayCpu.livecontext} ms (livecontext), ${replay.baseline} ms, CPU ${replayCpu.baseline} ms (baseline)`,
  );

  const lc = {
    ...(await measure(
      'livecontext',
      () => spawnWorker(bench, 'livecontext', lcQueue, bundles.livecontext),
      (text) => agents.ask(agentId, text),
    )),
    historyBeforeRecovery: lcHistory,
    replayMs: replay.livecontext,
    replayCpuMs: replayCpu.livecontext,
    replaySamples: samples.livecontext,
  };
  const bl = {
    ...(await measure(
      'baseline',
      () => spawnWorker(bench, 'baseline', blQueue, bundles.baseline),
      (text) => baseline.ask(baselineId, text),
    )),
    historyBeforeRecovery: blHistory,
    replayMs: replay.baseline,
    replayCpuMs: replayCpu.baseline,
    replaySamples: samples.baseline,
  };

  return {
    figures: {
      method: `${TURNS} sequential turns on an in-process worker, shut down (not timed); then a worker process takes one warm-up turn and, ${REPEAT} times, is SIGKILLed and replaced by a new process, timed client-side from the new process's spawn to the answer of one input sent at once (Node start-up, prebuilt bundle, connection, the server giving up on the dead worker's sticky queue, replay of the run); spawnToAnswerMs = median; spawnToReadyMs = spawn until the worker polls; replayMs = Worker.runReplayHistory of the run's history in the bench process (median; the sides alternate), the part of recovery that depends on the workflow code, and replayCpuMs the bench process's CPU time over each replay (median); workflow task timeout ${WORKFLOW_TASK_TIMEOUT} on both sides`,
      livecontext: lc,
      baseline: bl,
      ratio: ratio(lc.spawnToAnswerMs, bl.spawnToAnswerMs),
    },
    rows: [
      {
        figure: `recovery after ${TURNS} turns: SIGKILL, new process spawn → answer (ms, median of ${REPEAT})`,
        livecontext: lc.spawnToAnswerMs,
        baseline: bl.spawnToAnswerMs,
        ratio: ratio(lc.spawnToAnswerMs, bl.spawnToAnswerMs),
      },
      {
        figure: `replay of the ${TURNS}-turn history (ms, median of ${REPEAT})`,
        livecontext: replay.livecontext,
        baseline: replay.baseline,
        ratio: ratio(replay.livecontext, replay.baseline),
      },
      {
        figure: `replay of the ${TURNS}-turn history, CPU ms of the replaying process (median of ${REPEAT})`,
        livecontext: replayCpu.livecontext,
        baseline: replayCpu.baseline,
        ratio: ratio(replayCpu.livecontext, replayCpu.baseline),
      },
    ],
  };
}
