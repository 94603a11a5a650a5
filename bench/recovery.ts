/**
 * recovery: a 500-turn workflow (instant model) loses its worker: the worker is shut down, a fresh
 * Worker instance starts (same process; new workflow cache and, for livecontext, new activities with an
 * empty entry cache), and one input is sent right away. Measured: the new worker's start to the answer.
 * The new worker has to replay the whole run's history first.
 */
import type { Worker } from '@temporalio/worker';
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
  timed,
  uniqueId,
} from './support';

const TURNS = 500;
const REPEAT = 3;

/** REPEAT times: a fresh worker, timed from run() to the answer of one input sent as it starts, then shut down. */
async function measure(label: string, makeWorker: () => Promise<Worker>, ask: () => Promise<{ status: string }>) {
  const samples: number[] = [];
  const createMs: number[] = [];
  for (let i = 0; i < REPEAT; i++) {
    const created = await timed(makeWorker);
    createMs.push(round(created.ms));
    const t0 = performance.now(); // runUntil starts the worker (run()) at once
    const outcome = await created.value.runUntil(async () => {
      const answer = await ask();
      samples.push(round(performance.now() - t0));
      return answer;
    });
    if (outcome.status !== 'answered') throw new Error(`${label}: the turn after recovery ended ${outcome.status}`);
  }
  progress(`recovery: ${label} ${samples.join(', ')} ms`);
  return { turnsBefore: TURNS, startToAnswerMs: percentile(samples, 50), samplesMs: samples, workerCreateMs: createMs };
}

export async function recovery(bench: Bench): Promise<BenchResult> {
  const lcQueue = uniqueId('rec-lc');
  const blQueue = uniqueId('rec-bl');
  const agents = agentClient(bench, lcQueue);
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
      await baseline.start(baselineId, { modelCallsPerTurn: 1, toolCallsPerTurn: 0 });
      await runTurns('recovery: baseline build', TURNS, (text) => baseline.ask(baselineId, text));
    }),
  ]);
  const lcHistory = await historyBytesAllRuns(bench.client, agentId);
  const blHistory = await historyBytesAllRuns(bench.baselineClient, baselineId);

  const lc = { ...(await measure('livecontext', lcWorker, () => agents.ask(agentId, 'after recovery'))), historyBeforeRecovery: lcHistory };
  const bl = { ...(await measure('baseline', blWorker, () => baseline.ask(baselineId, 'after recovery'))), historyBeforeRecovery: blHistory };

  return {
    figures: {
      method:
        `${TURNS} sequential turns on a first worker, which is then shut down (graceful); then ${REPEAT} times: a new Worker instance in the same process (fresh workflow cache and, for livecontext, fresh activities with an empty entry cache), timed client-side from its run() to the answer of one input sent at once (it must replay the run first), then shut down; startToAnswerMs = median of the samples; Worker.create (prebuilt bundle) is reported apart as workerCreateMs and not included`,
      livecontext: lc,
      baseline: bl,
      ratio: ratio(lc.startToAnswerMs, bl.startToAnswerMs),
    },
    rows: [{ figure: `recovery after ${TURNS} turns, worker start→answer (ms, median of ${REPEAT})`, livecontext: lc.startToAnswerMs, baseline: bl.startToAnswerMs, ratio: ratio(lc.startToAnswerMs, bl.startToAnswerMs) }],
  };
}
