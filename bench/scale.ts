/**
 * scale: N live agents on one dev server and one worker process whose workflow cache holds fewer than N
 * (so most agents are evicted and wait on the server only). Each agent is started and takes one first
 * turn (instant model), then sits idle. Measured per side and per N: the worker process's RSS (peak and
 * at the end), the time from input to answer for a random sample of idle agents (one at a time, so it
 * is latency, not throughput) and, as a secondary figure, how fast the N agents came up. The baseline
 * is the bare baseline workflow run the same way (its own worker process, the same cache size).
 *
 * BENCH_SCALE_AGENTS=200,1000 changes the sizes (default 1000,10000; growth rows compare the smallest
 * with the largest). BENCH_SCALE_WORKER_NODE_ARGS passes Node options to the worker processes (e.g.
 * `--cpu-prof --cpu-prof-dir=/tmp/prof`, `--heapsnapshot-signal=SIGHUP`; SIGUSR2 would stop the worker) for profiling.
 */
import { mkdtempSync, writeFileSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { type CpuPerUnit, cpuSecondsOf, startCpuMeter, untilServerQuiet } from './cpu-meter';
import { frontendRequests, requestsPer } from './server-requests';
import { type Bench, type BenchResult, type Row, agentClient, baselineClient, percentile, progress, ratio, round, uniqueId } from './support';
import { type WorkerProcess, memoryOf, spawnWorker, stopGracefully } from './worker-spawn';

const DEFAULT_SIZES = [1_000, 10_000];
/** Temporal's workflow cache of the worker (maxCachedWorkflows), both sides: smaller than any N measured. */
const CACHE_SIZE = 500;
/** First turns in flight at once while the agents come up. */
const CONCURRENCY = 32;
/** Agents brought up on each side's worker before it is measured (not counted, never sampled). */
const WARMUP_AGENTS = 2 * CONCURRENCY;
/** Attempts of a start or an ask the dev server failed with a timeout or as unavailable (it is SQLite, on a shared machine). */
const ATTEMPTS = 5;
/** Idle agents asked, one after the other, for the latency figures (after WARMUP asks not counted). */
const SAMPLE = 200;
const WARMUP = 5;
/** How often the worker's RSS is read. */
const RSS_EVERY_MS = 250;

type Side = 'livecontext' | 'baseline';

function sizes(): number[] {
  const raw = process.env.BENCH_SCALE_AGENTS;
  if (!raw) return DEFAULT_SIZES;
  const parsed = raw.split(',').map((s) => Number(s.trim()));
  if (!parsed.length || parsed.some((n) => !Number.isInteger(n) || n < SAMPLE + WARMUP)) {
    throw new Error(`BENCH_SCALE_AGENTS=${raw}: give agent counts of at least ${SAMPLE + WARMUP}, comma-separated`);
  }
  return [...parsed].sort((a, b) => a - b);
}

// ---- the worker process and its memory ---------------------------------------------------------

/** The side's worker with the bench's cache size (and BENCH_SCALE_WORKER_NODE_ARGS, for profiling). */
function spawnScaleWorker(bench: Bench, side: Side, taskQueue: string, codePath: string): WorkerProcess {
  const nodeArgs = (process.env.BENCH_SCALE_WORKER_NODE_ARGS ?? '').split(/\s+/).filter(Boolean);
  return spawnWorker(bench, side, taskQueue, codePath, { nodeArgs, env: { BENCH_WORKER_MAX_CACHED_WORKFLOWS: String(CACHE_SIZE) } });
}

/** Reads the worker's RSS every RSS_EVERY_MS; the peak is the larger of the samples' and the kernel's. */
function watchMemory(pid: number) {
  const samples: Array<{ s: number; rssMiB: number }> = [];
  const t0 = performance.now();
  let peak = 0;
  const read = () => {
    const m = memoryOf(pid);
    if (m) {
      samples.push({ s: round((performance.now() - t0) / 1000), rssMiB: m.rssMiB });
      peak = Math.max(peak, m.rssMiB, m.peakMiB);
    }
    return m;
  };
  const timer = setInterval(read, RSS_EVERY_MS);
  return {
    now: () => read()?.rssMiB ?? null,
    stop: () => {
      read();
      clearInterval(timer);
      // Every 10th sample, for the JSON: enough to see the curve.
      return { peakMiB: peak, curve: samples.filter((_, i) => i % 10 === 0 || i === samples.length - 1) };
    },
  };
}

// ---- one side at one size ----------------------------------------------------------------------

interface Agents {
  start(id: string): Promise<unknown>;
  /** One turn; true when it was answered. */
  ask(id: string, text: string): Promise<boolean>;
}

/** A server that timed out or was unavailable (gRPC 4, 14, or an aborted update), as opposed to a wrong answer. */
function serverOverloaded(err: unknown): boolean {
  for (let e: unknown = err; e instanceof Error; e = e.cause) {
    const code = (e as { code?: unknown }).code;
    if (code === 4 || code === 14 || /DEADLINE_EXCEEDED|UNAVAILABLE|context deadline exceeded|update was aborted/i.test(e.message)) return true;
  }
  return false;
}

/**
 * `fn` again (after a second) while the server fails it as overloaded, counted in `retries`. A repeated
 * start finds the agent started (fine); a repeated ask may give an agent one more turn (fine here).
 */
async function patiently<T>(retries: { count: number }, fn: () => Promise<T>, alreadyDone?: (err: unknown) => boolean): Promise<T | undefined> {
  for (let attempt = 1; ; attempt++) {
    try {
      return await fn();
    } catch (err) {
      if (alreadyDone?.(err)) return undefined;
      if (attempt >= ATTEMPTS || !serverOverloaded(err)) throw err;
      retries.count++;
      await new Promise((r) => setTimeout(r, 1000));
    }
  }
}

/** A start repeated after a server timeout finds the agent started: fine. */
const alreadyStarted = (err: unknown) => err instanceof Error && err.name === 'WorkflowExecutionAlreadyStartedError';

/** Runs `fn` over `items`, `limit` at a time. */
async function pool<T>(items: T[], limit: number, fn: (item: T, i: number) => Promise<void>): Promise<void> {
  let next = 0;
  const runner = async () => {
    while (next < items.length) {
      const i = next++;
      await fn(items[i], i);
    }
  };
  await Promise.all(Array.from({ length: Math.min(limit, items.length) }, runner));
}

/** `k` distinct random indices below `n`. */
function sampleIndices(n: number, k: number): number[] {
  const picked = new Set<number>();
  while (picked.size < k) picked.add(Math.floor(Math.random() * n));
  return [...picked];
}

async function measure(bench: Bench, side: Side, n: number, codePath: string, agents: (taskQueue: string) => Agents) {
  const taskQueue = uniqueId(`scale-${side === 'livecontext' ? 'lc' : 'bl'}-${n}`);
  const client = agents(taskQueue);
  const worker = spawnScaleWorker(bench, side, taskQueue, codePath);
  try {
    await worker.ready;
    const memory = watchMemory(worker.proc.pid!);
    const idleRssMiB = memory.now();
    // Warm-up, not measured: the first side measured in this process paid for compiling the client's code
    // (gRPC, protobuf, Temporal's client), which the side after it then found compiled: part of the client's
    // CPU per agent being 1.4–1.6× the other side's (1.2–1.3× with the warm-up). Its agents are not sampled.
    const warmUpRetries = { count: 0 };
    await pool(
      Array.from({ length: WARMUP_AGENTS }, (_, i) => `scale-${side}-${n}-warm-${i}-${uniqueId('a')}`),
      CONCURRENCY,
      async (id) => {
        await patiently(warmUpRetries, () => client.start(id), alreadyStarted);
        await patiently(warmUpRetries, () => client.ask(id, 'hello'));
      },
    );
    // Each side starts on a quiet server, so neither pays for what an earlier benchmark (or side) left it
    // doing. (In full runs the server was quiet at once: its CPU per agent, 10–20 % higher there than on a
    // fresh server, grows with what the earlier benchmarks stored, for both sides.)
    const settled = await untilServerQuiet();
    progress(`scale: ${side} ${n}: warmed up; the dev server ${settled.quiet ? 'was quiet' : 'was still busy'} after ${settled.waitedMs} ms`);
    const ids = Array.from({ length: n }, (_, i) => `scale-${side}-${n}-${i}-${uniqueId('a')}`);
    // The order in which agents last ran on the worker: Temporal's cache keeps the CACHE_SIZE most recent.
    const lastRun = new Map<string, number>();
    let clock = 0;

    // Bring-up: start + a first turn each, CONCURRENCY at a time.
    const pid = worker.proc.pid!;
    const cpu0 = cpuSecondsOf(pid);
    const bringUpMeter = startCpuMeter(pid); // this process (the client), the worker, the dev server
    const requestsBefore = await frontendRequests(bench.metricsPort);
    const t0 = performance.now();
    let up = 0;
    const retries = { count: 0 };
    await pool(ids, CONCURRENCY, async (id) => {
      await patiently(retries, () => client.start(id), alreadyStarted);
      if (!(await patiently(retries, () => client.ask(id, 'hello')))) throw new Error(`scale: ${side} agent ${id}'s first turn was not answered`);
      lastRun.set(id, clock++);
      if (++up % Math.max(1, Math.round(n / 10)) === 0)
        progress(`scale: ${side} ${up}/${n} agents up (${round(up / ((performance.now() - t0) / 1000), 1)}/s, worker RSS ${memory.now()} MiB)`);
    });
    const bringUpSeconds = (performance.now() - t0) / 1000;
    const bringUpCpuMsPerAgent = bringUpMeter.stop(n);
    const bringUpServerRequestsPerAgent = requestsPer(requestsBefore, await frontendRequests(bench.metricsPort), n);
    const bringUpRetries = retries.count;
    const rssAfterBringUpMiB = memory.now();
    const cpu1 = cpuSecondsOf(pid);

    // Idle agents, one at a time: WARMUP asks not counted, then SAMPLE timed.
    const picked = sampleIndices(n, SAMPLE + WARMUP).map((i) => ids[i]);
    const samples: number[] = [];
    let evicted = 0;
    for (const [i, id] of picked.entries()) {
      const newer = clock - lastRun.get(id)! - 1; // agents run on the worker since this one last ran
      const t = performance.now();
      if (!(await patiently(retries, () => client.ask(id, `question ${i}`)))) throw new Error(`scale: ${side} agent ${id} did not answer`);
      const ms = performance.now() - t;
      lastRun.set(id, clock++);
      if (i < WARMUP) continue;
      samples.push(ms);
      if (newer >= CACHE_SIZE) evicted++;
    }
    const rssAtEndMiB = memory.now();
    const cpu2 = cpuSecondsOf(pid);
    const { peakMiB, curve } = memory.stop();
    const cpuMs = (a: number | null, b: number | null, per: number) => (a === null || b === null ? null : round(((b - a) * 1000) / per));
    const result = {
      agents: n,
      bringUpSeconds: round(bringUpSeconds),
      agentsPerSecond: round(n / bringUpSeconds, 1),
      workerRssMiB: { idleBeforeAgents: idleRssMiB, afterBringUp: rssAfterBringUpMiB, atEnd: rssAtEndMiB, peak: peakMiB },
      workerCpuMsPerAgentBroughtUp: cpuMs(cpu0, cpu1, n),
      bringUpCpuMsPerAgent,
      bringUpServerRequestsPerAgent,
      workerCpuMsPerSampledAsk: cpuMs(cpu1, cpu2, SAMPLE + WARMUP),
      serverRetries: { bringUp: bringUpRetries, sample: retries.count - bringUpRetries },
      sample: SAMPLE,
      sampleEvictedEstimate: evicted,
      p50Ms: round(percentile(samples, 50)),
      p99Ms: round(percentile(samples, 99)),
      maxMs: round(Math.max(...samples)),
      meanMs: round(samples.reduce((a, b) => a + b, 0) / samples.length),
      rssCurve: curve,
    };
    progress(
      `scale: ${side} ${n} agents up in ${result.bringUpSeconds} s (${result.agentsPerSecond}/s, CPU ms/agent: client ${bringUpCpuMsPerAgent.benchProcessMs}, worker ${bringUpCpuMsPerAgent.workerProcessMs}, server ${bringUpCpuMsPerAgent.serverMs}; server requests/agent ${JSON.stringify(bringUpServerRequestsPerAgent)}); RSS ${idleRssMiB} → ${rssAfterBringUpMiB} → ${rssAtEndMiB} MiB, peak ${peakMiB}; ` +
        `idle input→answer p50 ${result.p50Ms} ms, p99 ${result.p99Ms} ms (${evicted}/${SAMPLE} sampled agents evicted); calls repeated after a server timeout: ${bringUpRetries} + ${result.serverRetries.sample}`,
    );
    return result;
  } finally {
    await stopGracefully(worker);
  }
}

/** "client / worker / server" CPU ms, for a row. */
const cpuSplit = (c: CpuPerUnit) => `${c.benchProcessMs} / ${c.workerProcessMs ?? '–'} / ${c.serverMs ?? '–'}`;

// ---- the benchmark -----------------------------------------------------------------------------

export async function scale(bench: Bench): Promise<BenchResult> {
  const ns = sizes();
  const dir = mkdtempSync(path.join(os.tmpdir(), 'livecontext-bench-scale-'));
  const bundles = { livecontext: path.join(dir, 'livecontext.js'), baseline: path.join(dir, 'baseline.js') };
  writeFileSync(bundles.livecontext, bench.livecontextBundle.code);
  writeFileSync(bundles.baseline, bench.baselineBundle.code);

  const livecontextAgents = (taskQueue: string): Agents => {
    const c = agentClient(bench, taskQueue);
    return { start: (id) => c.start(id, { model: 'scripted:instant' }), ask: async (id, text) => (await c.ask(id, text)).status === 'answered' };
  };
  const baselineAgents = (taskQueue: string): Agents => {
    const c = baselineClient(bench, taskQueue);
    return {
      start: (id) => c.start(id, { modelCallsPerTurn: 1, toolCallsPerTurn: 0 }),
      ask: async (id, text) => (await c.ask(id, text)).status === 'answered',
    };
  };

  type Measured = Awaited<ReturnType<typeof measure>>;
  const bySize: Array<{ agents: number; livecontext: Measured; baseline: Measured }> = [];
  for (const n of ns) {
    const lc = await measure(bench, 'livecontext', n, bundles.livecontext, livecontextAgents);
    const bl = await measure(bench, 'baseline', n, bundles.baseline, baselineAgents);
    bySize.push({ agents: n, livecontext: lc, baseline: bl });
  }

  const fmt = (n: number) => n.toLocaleString('en-US');
  const rows: Row[] = [];
  for (const { agents: n, livecontext: lc, baseline: bl } of bySize) {
    const row = (figure: string, a: number | null, b: number | null): Row => ({ figure, livecontext: a, baseline: b, ratio: ratio(a, b) });
    rows.push(
      row(`worker RSS MiB, peak (${fmt(n)} agents)`, lc.workerRssMiB.peak, bl.workerRssMiB.peak),
      row(`worker RSS MiB, at the end (${fmt(n)} agents)`, lc.workerRssMiB.atEnd, bl.workerRssMiB.atEnd),
      row(`idle agent input→answer p50 ms (${fmt(n)} agents)`, lc.p50Ms, bl.p50Ms),
      row(`idle agent input→answer p99 ms (${fmt(n)} agents)`, lc.p99Ms, bl.p99Ms),
      row(`agents brought up per second (start + first turn, ${fmt(n)} agents)`, lc.agentsPerSecond, bl.agentsPerSecond),
      row(`bring-up CPU ms per agent, all processes (${fmt(n)} agents)`, lc.bringUpCpuMsPerAgent.totalMs, bl.bringUpCpuMsPerAgent.totalMs),
      {
        figure: `bring-up CPU ms per agent, client / worker / server (${fmt(n)} agents)`,
        livecontext: cpuSplit(lc.bringUpCpuMsPerAgent),
        baseline: cpuSplit(bl.bringUpCpuMsPerAgent),
      },
    );
  }
  const first = bySize[0];
  const last = bySize[bySize.length - 1];
  const growth = (pick: (m: Measured) => number | null) => ({
    livecontext: ratio(pick(last.livecontext), pick(first.livecontext)),
    baseline: ratio(pick(last.baseline), pick(first.baseline)),
  });
  const growths = {
    from: first.agents,
    to: last.agents,
    rssPeak: growth((m) => m.workerRssMiB.peak),
    rssAtEnd: growth((m) => m.workerRssMiB.atEnd),
    p50: growth((m) => m.p50Ms),
    p99: growth((m) => m.p99Ms),
  };
  if (bySize.length > 1) {
    const span = `${fmt(first.agents / 1000)}k→${fmt(last.agents / 1000)}k`;
    const g = (figure: string, x: { livecontext: number | null; baseline: number | null }): Row => ({ figure, ...x, ratio: ratio(x.livecontext, x.baseline) });
    rows.push(g(`RSS growth ${span} (peak, ×)`, growths.rssPeak), g(`p99 growth ${span} (×)`, growths.p99), g(`p50 growth ${span} (×)`, growths.p50));
  }
  return {
    figures: {
      method:
        `per side and per N: a worker in its own process (prebuilt bundle, maxCachedWorkflows ${CACHE_SIZE}) on a fresh task queue; first ${WARMUP_AGENTS} agents brought up and not counted (warm-up), then a wait until the dev server is quiet (under 5 % of a core for 2 s); N workflows started, each taking one first turn (instant model; baseline: one fakeModel), ${CONCURRENCY} agents in flight; ` +
        `then ${SAMPLE} random distinct agents (after ${WARMUP} warm-up asks) asked one after the other, client-side wall time of ask() (nearest-rank p50/p99); ` +
        `worker RSS = VmRSS of the worker process from /proc every ${RSS_EVERY_MS} ms, peak = max of samples and VmHWM, atEnd = after the sample; ` +
        `workerCpuMs* = the worker process's user+system CPU time (/proc/<pid>/stat) over the bring-up per agent, and over the sample per ask; ` +
        `bringUpCpuMsPerAgent = the same over the bring-up for this process (the client), the worker and the dev server; bringUpServerRequestsPerAgent = the dev server frontend's request counters by operation, per agent; ` +
        `serverRetries = starts and asks repeated (after 1 s, at most ${ATTEMPTS} attempts) because the dev server timed out or was unavailable; a sampled ask's time includes its repeats; ` +
        `sampleEvictedEstimate = sampled agents with at least ${CACHE_SIZE} other agents run on the worker since they last ran (so out of an LRU cache of ${CACHE_SIZE}); agents stay idle on the dev server after each size; ` +
        `growth = figure at the largest N / figure at the smallest, per side`,
      cacheSize: CACHE_SIZE,
      concurrency: CONCURRENCY,
      bySize,
      growth: growths,
    },
    rows,
  };
}
