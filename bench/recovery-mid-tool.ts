/**
 * recovery mid-tool: a worker process is SIGKILLed while a tool call runs, a new worker process already
 * polling (it was spawned while the tool ran, and its start-up, which on a loaded machine takes seconds
 * of TypeScript loading, is timed apart). Measured: from the kill to the turn's answer. That covers
 * Temporal noticing the dead activity (its heartbeat or start-to-close timeout), the retry's backoff, the
 * tool running again (SLOW_TOOL_MS) on the new worker, and the next workflow task reaching the new worker
 * (it first goes to the dead worker's sticky queue and waits there the sticky schedule-to-start timeout).
 */
import { temporal } from '@temporalio/proto';
import { type BenchResult, percentile, progress, ratio, round } from './support';
import { SLOW_TOOL_MS, TOOL_STARTED } from './slow-tool';
import type { WorkerProcess } from './worker-spawn';

type History = temporal.api.history.v1.IHistory;

export const MID_TOOL_REPEAT = 3;
/** The killed process's tool holds the call this long: far beyond its kill. */
const HOLD_MS = 120_000;

async function kill(w: WorkerProcess, signal: NodeJS.Signals = 'SIGKILL'): Promise<void> {
  if (w.proc.exitCode !== null || w.proc.signalCode !== null) return;
  const exited = new Promise((r) => w.proc.once('exit', r));
  w.proc.kill(signal);
  await exited;
}

/** Resolves when the process next prints TOOL_STARTED. */
function toolStarted(w: WorkerProcess): Promise<void> {
  return new Promise((resolve, reject) => {
    const onData = (d: Buffer) => {
      if (!String(d).includes(TOOL_STARTED)) return;
      w.proc.stdout!.off('data', onData);
      resolve();
    };
    w.proc.stdout!.on('data', onData);
    w.proc.once('exit', () => reject(new Error('the worker process exited before the tool started')));
  });
}

export interface MidToolFigures {
  killToAnswerMs: number;
  killSamplesMs: number[];
  /** The new process's start-up (spawn until it polls), not in killToAnswerMs. */
  spawnToReadyMs: number[];
}

/**
 * MID_TOOL_REPEAT times: a process whose tool holds the call takes an input; once the tool runs, a new
 * process is spawned and, once it polls, the first is SIGKILLed; timed from the kill to the answer.
 * `spawnOne(env)` spawns a worker process with `env` added.
 */
export async function measureMidTool(
  label: string,
  spawnOne: (env?: Record<string, string>) => WorkerProcess,
  ask: (text: string) => Promise<{ status: string }>,
  history?: () => Promise<History>,
): Promise<MidToolFigures> {
  const killSamples: number[] = [];
  const readyMs: number[] = [];
  const live: WorkerProcess[] = [];
  try {
    for (let i = 0; i < MID_TOOL_REPEAT; i++) {
      const old = spawnOne({ BENCH_SLOW_TOOL_MS: String(HOLD_MS) });
      live.push(old);
      await old.ready;
      const started = toolStarted(old);
      const answered = ask(`mid-tool ${i}`);
      await started;
      const t0 = performance.now();
      const standby = spawnOne();
      live.push(standby);
      await standby.ready;
      readyMs.push(round(performance.now() - t0));
      const tKill = performance.now();
      await kill(old);
      const outcome = await answered;
      const t1 = performance.now();
      killSamples.push(round(t1 - tKill));
      if (outcome.status !== 'answered') throw new Error(`${label}: the turn killed mid-tool ended ${outcome.status}`);
      if (history && process.env.BENCH_RECOVERY_TRACE === '1') progress(`${label} after the kill: ${timeline(await history(), Date.now() - (t1 - tKill))}`);
      await kill(standby, 'SIGTERM'); // a graceful stop, so the next round's first task is not held on its sticky queue
    }
  } finally {
    for (const w of live) await kill(w);
  }
  progress(`recovery mid-tool: ${label} kill → answer ${killSamples.join(', ')} ms (new process ready after ${readyMs.join(', ')} ms)`);
  return { killToAnswerMs: percentile(killSamples, 50), killSamplesMs: killSamples, spawnToReadyMs: readyMs };
}

export function midToolRows(lc: MidToolFigures, bl: MidToolFigures): BenchResult['rows'] {
  return [
    {
      figure: `recovery mid-tool: SIGKILL during a tool call, a new worker polling; kill → answer (ms, median of ${MID_TOOL_REPEAT})`,
      livecontext: lc.killToAnswerMs,
      baseline: bl.killToAnswerMs,
      ratio: ratio(lc.killToAnswerMs, bl.killToAnswerMs),
    },
  ];
}

export const MID_TOOL_METHOD = `a fresh workflow per side; ${MID_TOOL_REPEAT} times: a worker process whose tool holds the call takes an input; once the tool's body runs, a new worker process is spawned, and once it polls the first is SIGKILLed; timed client-side from the kill to the turn's answer (the tool runs again, ${SLOW_TOOL_MS} ms, on the new worker); spawnToReadyMs = the new process's start-up, apart; livecontext: scripted model, one idempotent tool call per turn, then a one-word answer; baseline: the bare workflow (model, the same tool, model) with its own activity options (start-to-close 1 minute, no heartbeat)`;

/** The events after `sinceMs` (epoch ms), as `+seconds name`: where the time went (BENCH_RECOVERY_TRACE=1). */
function timeline(history: History, sinceMs: number): string {
  const names = temporal.api.enums.v1.EventType;
  return (history.events ?? [])
    .map((e) => ({ at: Number(e.eventTime?.seconds ?? 0) * 1000 + Math.round((e.eventTime?.nanos ?? 0) / 1e6), type: names[e.eventType ?? 0] }))
    .filter((e) => e.at >= sinceMs - 200)
    .map((e) => `+${((e.at - sinceMs) / 1000).toFixed(2)} ${String(e.type).replace('EVENT_TYPE_', '')}`)
    .join(', ');
}
