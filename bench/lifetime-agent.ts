/**
 * One size of the lifetime benchmark: an old agent imported onto a worker process of its own, and what
 * it costs there — the worker's memory for it, its turns, export, a worker SIGKILL, continue-as-new.
 * Every wait for the agent is bounded: an agent that does not answer is reported with what was seen
 * (the workflow task's attempts and its last failure), and the benchmark goes on with the next size.
 */
import { spawn } from 'node:child_process';
import { statSync, unlinkSync } from 'node:fs';
import path from 'node:path';
import type { Client } from '@temporalio/client';
import { temporal } from '@temporalio/proto';
import type { AgentClient } from '../client/agent-client';
import { type Bench, continueAsNewTaskMs, firstWorkflowTaskMs, percentile, progress, round, uniqueId, workflowTaskMs } from './support';
import { type WorkerProcess, memoryOf, spawnWorker } from './worker-spawn';

type Event = temporal.api.history.v1.IHistoryEvent;
const { EventType } = temporal.api.enums.v1;
const ROOT = path.join(__dirname, '..');

export interface LifetimeOptions {
  /** How long one turn (or export, or import) may take before the size is reported as not finishing. */
  limitMs: number;
  /** Turns timed for the input → answer p50. */
  turns: number;
  /** The prebuilt workflow bundle the worker processes load. */
  bundlePath: string;
  /** Continue-as-new boundaries measured per size (medians reported). */
  canSamples: number;
}

/** What the agent did not do, in words, with what was seen; the figures measured before it stay. */
export class DidNotFinish extends Error {}

const sleep = (ms: number) => new Promise((r) => setTimeout(r, ms));

/** `p`, or DidNotFinish after `ms` with `seen()` in the message. */
async function within<T>(what: string, ms: number, p: Promise<T>, seen: () => Promise<string>): Promise<T> {
  p.catch(() => undefined); // still pending when we give up: its later failure is expected
  let timer: NodeJS.Timeout | undefined;
  const late = new Promise<'late'>((r) => (timer = setTimeout(() => r('late'), ms)));
  try {
    const v = await Promise.race([p, late]);
    if (v === 'late') throw new DidNotFinish(`${what}: no answer within ${ms / 1000} s (${await seen().catch((e) => `nothing more seen: ${e}`)})`);
    return v as T;
  } finally {
    clearTimeout(timer);
  }
}

/** The agent's current workflow task and its last failure, from describe and the run's history. */
async function whatWasSeen(client: Client, agentId: string): Promise<string> {
  const handle = client.workflow.getHandle(agentId);
  const d = await handle.describe();
  const pending = d.raw.pendingWorkflowTask;
  const events = (await handle.fetchHistory()).events ?? [];
  const failed = events.filter((e) => e.eventType === EventType.EVENT_TYPE_WORKFLOW_TASK_FAILED);
  const timedOut = events.filter((e) => e.eventType === EventType.EVENT_TYPE_WORKFLOW_TASK_TIMED_OUT).length;
  const last = failed[failed.length - 1]?.workflowTaskFailedEventAttributes?.failure?.message;
  return [
    `workflow ${d.status.name}`,
    pending ? `its workflow task at attempt ${pending.attempt ?? 1}` : 'no workflow task pending',
    `${failed.length} workflow task failure(s) and ${timedOut} timeout(s) in history`,
    last ? `last failure: ${last.split('\n')[0].slice(0, 160)}` : '',
  ]
    .filter(Boolean)
    .join('; ');
}

async function answered(what: string, limitMs: number, client: Client, agentId: string, ask: () => Promise<{ status: string }>): Promise<number> {
  const t0 = performance.now();
  const outcome = await within(what, limitMs, ask(), () => whatWasSeen(client, agentId));
  if (outcome.status !== 'answered') throw new DidNotFinish(`${what}: the turn ended ${outcome.status}`);
  return round(performance.now() - t0);
}

/** The CLI (`bin/livecontext.js`) against the bench's server and the size's task queue, bounded in time. */
export async function cli(args: string[], taskQueue: string, address: string, limitMs: number): Promise<number> {
  const t0 = performance.now();
  const proc = spawn(process.execPath, [path.join(ROOT, 'bin', 'livecontext.js'), ...args], {
    cwd: ROOT,
    env: { ...process.env, TEMPORAL_ADDRESS: address, LIVECONTEXT_TASK_QUEUE: taskQueue },
    stdio: ['ignore', 'ignore', 'pipe'],
  });
  let err = '';
  proc.stderr!.on('data', (d) => (err += d));
  const exited = new Promise<number | null>((r) => proc.once('exit', (code) => r(code)));
  const code = await within(`livecontext ${args[0]}`, limitMs, exited, async () => 'the command was still running').catch((e) => {
    proc.kill('SIGKILL');
    throw e;
  });
  if (code !== 0) throw new DidNotFinish(`livecontext ${args[0]} failed (${code}): ${err.trim().split('\n').slice(-3).join(' ').slice(0, 300)}`);
  return round(performance.now() - t0);
}

async function kill(w: WorkerProcess): Promise<void> {
  if (w.proc.exitCode !== null || w.proc.signalCode !== null) return;
  const exited = new Promise((r) => w.proc.once('exit', r));
  w.proc.kill('SIGKILL');
  await exited;
}

/** A worker process whose garbage the benchmark can have collected (see worker-process.ts). */
function spawnLifetimeWorker(bench: Bench, taskQueue: string, bundlePath: string): WorkerProcess {
  return spawnWorker(bench, 'livecontext', taskQueue, bundlePath, { nodeArgs: ['--expose-gc'], env: { BENCH_WORKER_GC_ON_STDIN: '1' }, stdin: true });
}

/** Asks the worker for a full garbage collection of its main thread and waits until done (at most 10 s). */
async function collectGarbage(w: WorkerProcess): Promise<void> {
  const done = new Promise<void>((resolve) => {
    const onData = (d: Buffer) => {
      if (!String(d).includes('GC DONE')) return;
      w.proc.stdout!.off('data', onData);
      resolve();
    };
    w.proc.stdout!.on('data', onData);
  });
  w.proc.stdin!.write('gc\n');
  await Promise.race([done, sleep(10_000)]);
}

/**
 * The worker's RSS once it has settled: three rounds of a full collection of its main thread's heap and
 * 6 s (the second round takes back another ~25 MiB; the third little), the median of the last three reads.
 */
async function settledRssMiB(w: WorkerProcess): Promise<number | null> {
  const curve: number[] = [];
  for (let i = 0; i < 7; i++) {
    if (i % 3 === 0) await collectGarbage(w);
    await sleep(2000);
    const m = memoryOf(w.proc.pid!);
    if (m) curve.push(m.rssMiB);
  }
  return curve.length ? percentile(curve.slice(-3), 50) : null;
}

/** The run ids of `agentId` before and after a continue-as-new, once the new run exists (bounded). */
async function nextRun(client: Client, agentId: string, before: string, limitMs: number): Promise<string> {
  const until = Date.now() + limitMs;
  for (;;) {
    const runId = (await client.workflow.getHandle(agentId).describe()).runId;
    if (runId !== before) return runId;
    if (Date.now() > until)
      throw new DidNotFinish(`no new run within ${limitMs / 1000} s after the budget was lowered (${await whatWasSeen(client, agentId)})`);
    await sleep(200);
  }
}

/**
 * The first workflow task completed at or after `sinceMs` (event time): its Started→Completed ms and
 * the attempt it succeeded at (failed and timed-out attempts before it are not in history, only counted).
 */
function firstTaskSince(events: Event[], sinceMs = 0): { ms: number; attempt: number } | null {
  const t = (e: Event) => Number(e.eventTime?.seconds ?? 0) * 1000 + (e.eventTime?.nanos ?? 0) / 1e6;
  const done = events.find((e) => e.eventType === EventType.EVENT_TYPE_WORKFLOW_TASK_COMPLETED && t(e) >= sinceMs);
  const ms = done ? workflowTaskMs(events, Number(done.eventId)) : null;
  if (!done || ms === null) return null;
  const byId = (id: unknown) => events.find((e) => Number(e.eventId) === Number(id));
  const started = byId(done.workflowTaskCompletedEventAttributes?.startedEventId);
  const scheduled = byId(started?.workflowTaskStartedEventAttributes?.scheduledEventId);
  return { ms: round(ms), attempt: scheduled?.workflowTaskScheduledEventAttributes?.attempt ?? 1 };
}

/** One continue-as-new boundary: the budget that caused it, the ask across it, and its two workflow tasks. */
export interface CanSample {
  budgetSetTo: number;
  wallMs: number;
  continueAsNewTaskMs: number | null;
  newRunFirstTaskMs: number | null;
}

export interface SizeFigures {
  snapshotFile?: { entries: number; bytes: number };
  importMs?: number;
  firstTurnAfterImportMs?: number;
  /** The imported run's first workflow task (it takes the snapshot in), server-side, and its attempt. */
  importedRunFirstTask?: { ms: number; attempt: number } | null;
  turnMs?: number[];
  inputToAnswerP50Ms?: number;
  workerRssMiB?: { before: number | null; afterTurns: number | null; afterFirstTurn: number | null; peak: number | null };
  rssPerAgentMiB?: number | null;
  /** The worker's peak RSS (VmHWM) by the end of the timed turns, above its RSS before the import. */
  peakAboveBeforeMiB?: number | null;
  exportMs?: number;
  exportBytes?: number;
  recovery?: { spawnToAnswerMs: number; newWorkerFirstTask: { ms: number; attempt: number } | null; rssAfterMiB: number | null; rssReadyMiB: number | null };
  /** Medians over the samples. */
  continueAsNew?: { wallMs: number | null; continueAsNewTaskMs: number | null; newRunFirstTaskMs: number | null; samples: CanSample[] };
  /** Why the size stopped before the end (the figures above it were measured). */
  didNotFinish?: string;
}

/**
 * Measures one old agent (its snapshot already written to `snapshotPath`) on worker processes of its own.
 * Fills `f` as it goes, so a size that stops part-way keeps what it measured.
 */
export async function measureOldAgent(
  bench: Bench,
  agents: (taskQueue: string) => AgentClient,
  young: string,
  snapshotPath: string,
  o: LifetimeOptions,
  f: SizeFigures,
): Promise<void> {
  const taskQueue = uniqueId('life');
  const client = agents(taskQueue);
  const agentId = uniqueId('life-old');
  const warmId = uniqueId('life-young');
  const say = (m: string) => progress(`lifetime: ${path.basename(snapshotPath, '.json')}: ${m}`);
  let worker = spawnLifetimeWorker(bench, taskQueue, o.bundlePath);
  const ask = (what: string, text = 'hello') => answered(what, o.limitMs, bench.client, agentId, () => client.ask(agentId, text));
  try {
    await worker.ready;
    // A young agent answers first, so the worker's code paths are warm and its RSS is the "before".
    await cli(['import', young, '--id', warmId], taskQueue, bench.env.address, o.limitMs);
    // It takes as many turns as the old agent will, and the RSS settles twice as long: what the worker
    // lets go of over time (code not run again, V8's heap shrinking) is then let go of before, not after.
    for (let i = 0; i <= o.turns; i++) await answered('the young agent', o.limitMs, bench.client, warmId, () => client.ask(warmId, 'hello'));
    await settledRssMiB(worker);
    const before = await settledRssMiB(worker);

    // Import and export read or write the whole file: their bound grows with it (one more second per MB).
    const fileLimitMs = o.limitMs + Math.round(statSync(snapshotPath).size / 1e6) * 1000;
    f.importMs = await cli(['import', snapshotPath, '--id', agentId], taskQueue, bench.env.address, fileLimitMs);
    say(`imported in ${f.importMs} ms`);
    f.firstTurnAfterImportMs = await ask('the first turn after import');
    const afterFirstTurn = memoryOf(worker.proc.pid!)?.rssMiB ?? null;
    f.importedRunFirstTask = firstTaskSince((await bench.client.workflow.getHandle(agentId).fetchHistory()).events ?? []);
    say(`first turn after import ${f.firstTurnAfterImportMs} ms (the run's first task ${JSON.stringify(f.importedRunFirstTask)})`);
    f.turnMs = [];
    for (let i = 0; i < o.turns; i++) f.turnMs.push(await ask(`turn ${i + 1} of ${o.turns}`));
    f.inputToAnswerP50Ms = round(percentile(f.turnMs, 50));
    const afterTurns = await settledRssMiB(worker);
    f.workerRssMiB = { before, afterFirstTurn, afterTurns, peak: memoryOf(worker.proc.pid!)?.peakMiB ?? null };
    f.rssPerAgentMiB = before === null || afterTurns === null ? null : round(afterTurns - before);
    f.peakAboveBeforeMiB = before === null || f.workerRssMiB.peak === null ? null : round(f.workerRssMiB.peak - before);
    say(`input → answer p50 ${f.inputToAnswerP50Ms} ms; worker RSS ${before} → ${afterTurns} MiB`);

    const out = `${snapshotPath}.export.json`;
    try {
      f.exportMs = await cli(['export', agentId, '--out', out], taskQueue, bench.env.address, fileLimitMs);
      f.exportBytes = statSync(out).size;
    } finally {
      try {
        unlinkSync(out);
      } catch {
        // not written
      }
    }
    say(`exported in ${f.exportMs} ms (${f.exportBytes} bytes)`);

    // A worker SIGKILL: from the new process's spawn to the answer of an input sent at once.
    await kill(worker);
    const killedAt = Date.now();
    const t0 = performance.now();
    worker = spawnLifetimeWorker(bench, taskQueue, o.bundlePath);
    let rssReadyMiB: number | null = null;
    const w = worker;
    void w.ready.then(
      () => (rssReadyMiB = memoryOf(w.proc.pid!)?.rssMiB ?? null),
      () => undefined,
    );
    await answered('the first turn after a worker SIGKILL', o.limitMs, bench.client, agentId, () => client.ask(agentId, 'hello'));
    const spawnToAnswerMs = round(performance.now() - t0);
    const events = (await bench.client.workflow.getHandle(agentId).fetchHistory()).events ?? [];
    f.recovery = {
      spawnToAnswerMs,
      newWorkerFirstTask: firstTaskSince(events, killedAt),
      rssReadyMiB,
      rssAfterMiB: memoryOf(worker.proc.pid!)?.rssMiB ?? null,
    };
    say(`after SIGKILL: spawn → answer ${spawnToAnswerMs} ms, the new worker's first task ${JSON.stringify(f.recovery.newWorkerFirstTask)}`);

    // Continue-as-new, `canSamples` times: the budget below what this run added, then one more turn. The
    // first boundary leaves the imported run; later ones leave a run that a few turns grew (budget: half
    // of that growth, so the new run's answer does not continue again).
    const handle = bench.client.workflow.getHandle(agentId);
    const samples: CanSample[] = [];
    for (let k = 0; k < o.canSamples; k++) {
      let budgetSetTo: number;
      if (k === 0) {
        budgetSetTo = Math.max(1, Math.floor(Number((await handle.describe()).raw.workflowExecutionInfo?.historySizeBytes ?? 0) / 2));
      } else {
        const sizeOf = async () => Number((await handle.describe()).raw.workflowExecutionInfo?.historySizeBytes ?? 0);
        await client.configure(agentId, { historyBudgetBytes: 1 << 30 });
        const then = await sizeOf();
        for (let w = 0; w < 4; w++) await ask('a turn between continue-as-new samples', `warm ${w}`);
        budgetSetTo = Math.max(1, Math.floor(((await sizeOf()) - then) / 2));
      }
      const runBefore = (await handle.describe()).runId;
      await client.configure(agentId, { historyBudgetBytes: budgetSetTo });
      const wallMs = await ask('the turn across continue-as-new', 'hello');
      const newRun = await nextRun(bench.client, agentId, runBefore, o.limitMs);
      const oldEvents = (await bench.client.workflow.getHandle(agentId, runBefore).fetchHistory()).events ?? [];
      // The new run's first task may still be running when the answer came from the old run: wait for it.
      let newEvents: Event[] = [];
      for (const until = Date.now() + o.limitMs; ; await sleep(200)) {
        newEvents = (await bench.client.workflow.getHandle(agentId, newRun).fetchHistory()).events ?? [];
        if (firstWorkflowTaskMs(newEvents) !== null) break;
        if (Date.now() > until)
          throw new DidNotFinish(`the new run's first task did not complete within ${o.limitMs / 1000} s (${await whatWasSeen(bench.client, agentId)})`);
      }
      const ms = (x: number | null) => (x === null ? null : round(x));
      samples.push({ budgetSetTo, wallMs, continueAsNewTaskMs: ms(continueAsNewTaskMs(oldEvents)), newRunFirstTaskMs: ms(firstWorkflowTaskMs(newEvents)) });
      const last = samples[samples.length - 1];
      say(`continue-as-new ${k + 1}/${o.canSamples}: the task that continues ${last.continueAsNewTaskMs} ms, the new run's first ${last.newRunFirstTaskMs} ms`);
    }
    const median = (pick: (s: CanSample) => number | null) => {
      const values = samples.map(pick).filter((v): v is number => v !== null);
      return values.length ? round(percentile(values, 50)) : null;
    };
    f.continueAsNew = {
      wallMs: median((s) => s.wallMs),
      continueAsNewTaskMs: median((s) => s.continueAsNewTaskMs),
      newRunFirstTaskMs: median((s) => s.newRunFirstTaskMs),
      samples,
    };
  } catch (err) {
    if (!(err instanceof DidNotFinish)) throw err;
    f.didNotFinish = err.message;
    say(`did not finish: ${err.message}`);
  } finally {
    await kill(worker);
    for (const id of [agentId, warmId])
      await bench.client.workflow
        .getHandle(id)
        .terminate('lifetime benchmark done')
        .catch(() => undefined);
  }
}
