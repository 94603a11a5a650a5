/**
 * throughput: 100 concurrent agents × 10 turns each (instant model, no tools): turns per second, and the CPU
 * time each side uses per turn (this process, the dev server; on a loaded machine the steadier figure).
 * BENCH_THROUGHPUT_WORKER_PROCESS=1 runs each side's worker in a process of its own, so the client's CPU and
 * the worker's are told apart (BENCH_THROUGHPUT_WORKER_NODE_ARGS passes Node options to it, e.g.
 * `--cpu-prof --cpu-prof-dir=/tmp/prof`).
 */
import { mkdtempSync, writeFileSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { type CpuPerUnit, startCpuMeter, untilServerQuiet } from './cpu-meter';
import { frontendRequests, requestsPer } from './server-requests';
import {
  type Bench,
  type BenchResult,
  type Row,
  agentClient,
  baselineClient,
  median,
  progress,
  ratio,
  round,
  sequentially,
  livecontextWorker,
  timed,
  uniqueId,
  withWorkers,
} from './support';
import { type WorkerProcess, spawnWorker, stopGracefully } from './worker-spawn';

const AGENTS = 100;
const TURNS = 10;
/**
 * Rounds of the three sides, interleaved, in the orders below (a Williams design): over the six rounds each
 * side runs twice in each place of a round and right after each other side twice. The dev server slows as its
 * database grows during a run, and what runs before a side can cost it: a fixed order (or rotating it, which
 * kept each side right after the same other one) favoured one side. Each side's best round is its figure.
 */
const ROUNDS = 6;
const ORDERS = [
  [0, 1, 2],
  [1, 2, 0],
  [2, 0, 1],
  [0, 2, 1],
  [1, 0, 2],
  [2, 1, 0],
];
/**
 * Before the rounds, each side runs as many agents × TURNS untimed as a round does: whichever side went first
 * used to pay its process's warm-up (V8 compiling the client's and the worker's code, shared by both sides
 * when the workers run in this process; the heap growing to hold a round's agents) — with 20 agents to warm
 * up, the first round still took 15–30 % more CPU per turn than the same side's later rounds.
 */
const WARM_UP_AGENTS = AGENTS;

export async function throughput(bench: Bench): Promise<BenchResult> {
  // Each side has a worker of its own, so each worker holds the same number of workflows (a worker's cache
  // grows with the rounds, and what it holds costs its garbage collector on every turn).
  const queues = { livecontext: uniqueId('tp-lc'), lean: uniqueId('tp-lcl'), baseline: uniqueId('tp-bl') };
  const agents = agentClient(bench, queues.livecontext);
  // The same agents with the client's two trade-offs switched: what each costs, measured.
  const lean = agentClient(bench, queues.lean, { searchAttributes: false, answersInline: true });
  const baseline = baselineClient(bench, queues.baseline);
  const ids = (prefix: string) => Array.from({ length: AGENTS }, (_, i) => uniqueId(`${prefix}-${i}`));

  /** Warms a side up: WARM_UP_AGENTS × TURNS turns, neither timed nor metered. */
  const warmUp = async (side: string, start: (id: string) => Promise<unknown>, ask: (id: string, i: number) => Promise<boolean>) => {
    const all = ids(`tp-warm-${side}`).slice(0, WARM_UP_AGENTS);
    await Promise.all(all.map(start));
    await Promise.all(all.map((id) => sequentially(TURNS, (i) => ask(id, i))));
  };
  /**
   * Starts every workflow first and waits until the dev server is quiet (not timed: the first workflow tasks
   * the starts caused, and what the side before left the server doing, are done), then times AGENTS × TURNS
   * turns run concurrently.
   */
  const measure = async (side: string, start: (id: string) => Promise<unknown>, ask: (id: string, i: number) => Promise<boolean>) => {
    const all = ids(`tp-${side}`);
    await Promise.all(all.map(start));
    const settled = await untilServerQuiet(30_000);
    if (!settled.quiet) progress(`throughput: ${side}: the dev server was still busy after ${settled.waitedMs} ms`);
    let answered = 0;
    const meter = startCpuMeter(workerPids[side === 'livecontext-lean' ? 'lean' : side === 'baseline' ? 'baseline' : 'livecontext']);
    const requestsBefore = await frontendRequests(bench.metricsPort);
    const { ms } = await timed(() =>
      Promise.all(
        all.map((id) =>
          sequentially(TURNS, async (i) => {
            if (await ask(id, i)) answered++;
          }),
        ),
      ),
    );
    const cpu = meter.stop(Math.max(1, answered));
    const serverRequestsPerTurn = requestsPer(requestsBefore, await frontendRequests(bench.metricsPort), Math.max(1, answered));
    progress(
      `throughput: ${side} ${answered} turns in ${Math.round(ms)} ms; CPU ms/turn ${JSON.stringify(cpu)}; server requests/turn ${JSON.stringify(serverRequestsPerTurn)}`,
    );
    return { turns: answered, seconds: round(ms / 1000, 2), turnsPerSecond: round(answered / (ms / 1000), 1), cpuMsPerTurn: cpu, serverRequestsPerTurn };
  };

  type Round = Awaited<ReturnType<typeof measure>>;
  const best = (rounds: Round[]) => ({
    ...rounds.reduce((a, b) => (b.turnsPerSecond > a.turnsPerSecond ? b : a)),
    roundsTurnsPerSecond: rounds.map((r) => r.turnsPerSecond),
    // CPU per turn is steady under load: the mean over every round, not the best round's.
    cpuMsPerTurn: meanCpu(rounds.map((r) => r.cpuMsPerTurn)),
    roundsServerRequestsPerTurn: rounds.map((r) => r.serverRequestsPerTurn),
  });
  const workerPids: { livecontext?: number; lean?: number; baseline?: number } = {};
  const run = async () => {
    // The three sides: the default client, the client with its trade-offs switched, the baseline.
    const sides: Array<[string, (id: string) => Promise<unknown>, (id: string, i: number) => Promise<boolean>]> = [
      ['livecontext', (id) => agents.start(id, { model: 'scripted:instant' }), async (id, i) => (await agents.ask(id, `question ${i}`)).status === 'answered'],
      ['livecontext-lean', (id) => lean.start(id, { model: 'scripted:instant' }), async (id, i) => (await lean.ask(id, `question ${i}`)).status === 'answered'],
      [
        'baseline',
        (id) => baseline.start(id, { modelCallsPerTurn: 1, toolCallsPerTurn: 0 }),
        async (id, i) => (await baseline.ask(id, `question ${i}`)).status === 'answered',
      ],
    ];
    // BENCH_THROUGHPUT_FOLLOWED=1 adds askTracked's outcome (accepted, then polled: what ask sent before it waited for completion in one request).
    if (process.env.BENCH_THROUGHPUT_FOLLOWED === '1')
      sides.push([
        'livecontext-followed',
        (id) => agents.start(id, { model: 'scripted:instant' }),
        async (id, i) => (await (await agents.askTracked(id, `question ${i}`)).outcome).status === 'answered',
      ]);
    for (const [side, start, ask] of sides) await warmUp(side, start, ask);
    const rounds: Round[][] = sides.map(() => []);
    for (let round = 0; round < ROUNDS; round++) {
      for (let k = 0; k < sides.length; k++) {
        const i = sides.length === 3 ? ORDERS[round % ORDERS.length][k] : (round + k) % sides.length;
        const [side, start, ask] = sides[i];
        rounds[i].push(await measure(side, start, ask));
      }
    }
    const [lc, leanResult, bl, followed] = rounds.map(best);
    // Each round runs the sides back to back, so a round's ratio is free of the drift across a run (the dev
    // server slows as its database grows); the median of the rounds' ratios is the steadier comparison.
    const [lcRoundRatios, leanRoundRatios] = [rounds[0], rounds[1]].map((side) =>
      side.map((r, k) => ratio(r.turnsPerSecond, rounds[2][k].turnsPerSecond) ?? 0),
    );
    const lcMedianRatio = round(median(lcRoundRatios), 2);
    const cpuRow = (figure: string, pick: (c: CpuPerUnit) => number | null | undefined, a = lc): Row => {
      const x = pick(a.cpuMsPerTurn) ?? null;
      const y = pick(bl.cpuMsPerTurn) ?? null;
      return { figure, livecontext: x, baseline: y, ratio: ratio(x, y) };
    };
    const separate = workerPids.livecontext !== undefined;
    return {
      figures: {
        method:
          `each side first warmed up (${WARM_UP_AGENTS} agents × ${TURNS} turns, not measured); then ${AGENTS} workflows started first (not timed), then each runs ${TURNS} sequential ask() turns, all concurrently; turns/s = answered turns / wall time; ${ROUNDS} rounds of the three sides interleaved, in the orders ABC, BCA, CAB, ACB, BAC, CBA (each side twice in each place and twice right after each other side), each waiting after its starts until the dev server is quiet (the starts' first workflow tasks and what the side before left are not timed), each side's best round reported, and the median of the rounds' ratios (a round's sides run back to back); ` +
          `cpuMsPerTurn = user+system CPU ms per answered turn over the timed part, mean over the rounds: this process (${separate ? 'the client' : 'client and both workers, one side at a time'}; split by thread: main JS thread, Temporal core's tokio threads, other), ` +
          `${separate ? "the side's worker process, " : ''}and the dev server (/proc/<pid>/stat)`,
        workersInProcessesOfTheirOwn: separate,
        livecontext: lc,
        livecontextWithoutSearchAttributesAnswersInline: leanResult,
        ...(followed ? { livecontextAskTrackedOutcome: followed } : {}),
        baseline: bl,
        ratio: ratio(lc.turnsPerSecond, bl.turnsPerSecond),
        leanRatio: ratio(leanResult.turnsPerSecond, bl.turnsPerSecond),
        roundRatios: lcRoundRatios,
        medianRoundRatio: lcMedianRatio,
        leanRoundRatios,
        leanMedianRoundRatio: round(median(leanRoundRatios), 2),
      },
      rows: [
        {
          figure: `turns/s, ${AGENTS} agents × ${TURNS} turns (best of ${ROUNDS})`,
          livecontext: lc.turnsPerSecond,
          baseline: bl.turnsPerSecond,
          ratio: ratio(lc.turnsPerSecond, bl.turnsPerSecond),
        },
        {
          figure: `turns/s, median of the ${ROUNDS} rounds (ratio: median of the rounds' own ratios)`,
          livecontext: round(median(rounds[0].map((r) => r.turnsPerSecond))),
          baseline: round(median(rounds[2].map((r) => r.turnsPerSecond))),
          ratio: lcMedianRatio,
        },
        {
          figure: 'turns/s, client without search attributes, answers inline',
          livecontext: leanResult.turnsPerSecond,
          baseline: bl.turnsPerSecond,
          ratio: ratio(leanResult.turnsPerSecond, bl.turnsPerSecond),
        },
        cpuRow(`CPU ms per turn, all processes (${separate ? 'client, worker, server' : 'client + worker, server'})`, (c) => c.totalMs),
        cpuRow(`CPU ms per turn, ${separate ? 'client process' : 'client + worker process'}`, (c) => c.benchProcessMs),
        ...(separate ? [cpuRow('CPU ms per turn, worker process', (c) => c.workerProcessMs)] : []),
        cpuRow('CPU ms per turn, dev server', (c) => c.serverMs),
        cpuRow('CPU ms per turn, all processes, lean client', (c) => c.totalMs, leanResult),
        ...(followed ? [cpuRow('CPU ms per turn, all processes, askTracked (accepted, then polled)', (c) => c.totalMs, followed)] : []),
      ],
    };
  };
  if (process.env.BENCH_THROUGHPUT_WORKER_PROCESS !== '1') {
    const leanWorker = await livecontextWorker(bench, queues.lean);
    return withWorkers(bench, queues, () => leanWorker.runUntil(run()));
  }
  // Each side's worker in a process of its own (prebuilt bundles, as the scale benchmark's).
  const dir = mkdtempSync(path.join(os.tmpdir(), 'livecontext-bench-throughput-'));
  const nodeArgs = (process.env.BENCH_THROUGHPUT_WORKER_NODE_ARGS ?? '').split(/\s+/).filter(Boolean);
  const workers: WorkerProcess[] = [];
  try {
    for (const side of ['livecontext', 'lean', 'baseline'] as const) {
      const codePath = path.join(dir, `${side}.js`);
      writeFileSync(codePath, (side === 'baseline' ? bench.baselineBundle : bench.livecontextBundle).code);
      const w = spawnWorker(bench, side === 'baseline' ? 'baseline' : 'livecontext', queues[side], codePath, { nodeArgs });
      workers.push(w);
      await w.ready;
      workerPids[side] = w.proc.pid!;
    }
    return await run();
  } finally {
    await Promise.all(workers.map(stopGracefully));
  }
}

/** Field by field mean of per-round CPU figures. */
function meanCpu(all: CpuPerUnit[]): CpuPerUnit {
  const mean = (pick: (c: CpuPerUnit) => number | null | undefined) => {
    const xs = all.map(pick).filter((x): x is number => typeof x === 'number');
    return xs.length ? round(xs.reduce((a, b) => a + b, 0) / xs.length, 2) : null;
  };
  const out: CpuPerUnit = {
    benchProcessMs: mean((c) => c.benchProcessMs) ?? 0,
    benchThreadsMs: {
      main: mean((c) => c.benchThreadsMs.main) ?? 0,
      core: mean((c) => c.benchThreadsMs.core) ?? 0,
      other: mean((c) => c.benchThreadsMs.other) ?? 0,
    },
    serverMs: mean((c) => c.serverMs),
    totalMs: mean((c) => c.totalMs) ?? 0,
  };
  if (all.some((c) => c.workerProcessMs !== undefined)) out.workerProcessMs = mean((c) => c.workerProcessMs);
  return out;
}
