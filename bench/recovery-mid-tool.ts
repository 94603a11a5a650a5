/**
 * recovery mid-tool: a worker process is SIGKILLed while a tool call runs (SLOW_TOOL_MS into a tool of
 * 1 s, half-way) and a new process is spawned at once. Measured: from the new process's spawn, and from
 * the kill, to the answer of the turn. That covers Temporal noticing the dead activity (its heartbeat or
 * start-to-close timeout), the retry's backoff, the tool running again on the new worker, and the next
 * workflow task reaching the new worker (the dead worker's sticky queue: its schedule-to-start timeout).
 */
import { type BenchResult, percentile, progress, ratio, round } from './support';
import { SLOW_TOOL_MS, TOOL_STARTED } from './slow-tool';
import type { WorkerProcess } from './worker-spawn';
import { temporal } from '@temporalio/proto';

type History = temporal.api.history.v1.IHistory;

export const MID_TOOL_REPEAT = 3;
/** Into the tool's body when the worker is killed. */
const KILL_AFTER_MS = SLOW_TOOL_MS / 2;

async function kill(w: WorkerProcess): Promise<void> {
  if (w.proc.exitCode !== null || w.proc.signalCode !== null) return;
  const exited = new Promise((r) => w.proc.once('exit', r));
  w.proc.kill('SIGKILL');
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
  spawnToAnswerMs: number;
  killToAnswerMs: number;
  samplesMs: number[];
  killSamplesMs: number[];
}

/**
 * A first process answers a warm-up tool turn (the run cached and sticky there); then MID_TOOL_REPEAT
 * times: ask, kill the process KILL_AFTER_MS into the tool, spawn a new one at once, time to the answer.
 */
export async function measureMidTool(
  label: string,
  spawnOne: () => WorkerProcess,
  ask: (text: string) => Promise<{ status: string }>,
  history?: () => Promise<History>,
): Promise<MidToolFigures> {
  const samples: number[] = [];
  const killSamples: number[] = [];
  let current = spawnOne();
  try {
    await current.ready;
    await ask('warm-up');
    for (let i = 0; i < MID_TOOL_REPEAT; i++) {
      const started = toolStarted(current);
      const answered = ask(`mid-tool ${i}`);
      await started;
      await new Promise((r) => setTimeout(r, KILL_AFTER_MS));
      const tKill = performance.now();
      await kill(current);
      const t0 = performance.now();
      current = spawnOne();
      const outcome = await answered;
      const t1 = performance.now();
      samples.push(round(t1 - t0));
      killSamples.push(round(t1 - tKill));
      if (outcome.status !== 'answered') throw new Error(`${label}: the turn killed mid-tool ended ${outcome.status}`);
      if (history && process.env.BENCH_RECOVERY_TRACE === '1') progress(`${label} after the kill: ${timeline(await history(), Date.now() - (t1 - tKill))}`);
      await current.ready;
    }
  } finally {
    await kill(current);
  }
  progress(`recovery mid-tool: ${label} spawn → answer ${samples.join(', ')} ms; kill → answer ${killSamples.join(', ')} ms`);
  return { spawnToAnswerMs: percentile(samples, 50), killToAnswerMs: percentile(killSamples, 50), samplesMs: samples, killSamplesMs: killSamples };
}

export function midToolRows(lc: MidToolFigures, bl: MidToolFigures): BenchResult['rows'] {
  return [
    {
      figure: `recovery mid-tool: SIGKILL ${KILL_AFTER_MS} ms into a ${SLOW_TOOL_MS} ms tool, new process spawn → answer (ms, median of ${MID_TOOL_REPEAT})`,
      livecontext: lc.spawnToAnswerMs,
      baseline: bl.spawnToAnswerMs,
      ratio: ratio(lc.spawnToAnswerMs, bl.spawnToAnswerMs),
    },
    {
      figure: `recovery mid-tool: kill → answer (ms, median of ${MID_TOOL_REPEAT})`,
      livecontext: lc.killToAnswerMs,
      baseline: bl.killToAnswerMs,
      ratio: ratio(lc.killToAnswerMs, bl.killToAnswerMs),
    },
  ];
}

export const MID_TOOL_METHOD = `a fresh agent (scripted model: one ${SLOW_TOOL_MS} ms idempotent tool call per turn, then a one-word answer) on a worker process takes a warm-up turn; then ${MID_TOOL_REPEAT} times: an input is sent, the process is SIGKILLed ${KILL_AFTER_MS} ms into the tool's body and a new process spawned at once; timed client-side from the spawn (and from the kill) to the turn's answer; the baseline is the bare workflow (model, the same ${SLOW_TOOL_MS} ms tool, model) with its own activity options (start-to-close 1 minute, no heartbeat)`;

/** The events after `sinceMs` (epoch ms), as `+seconds name`: where the time went (BENCH_RECOVERY_TRACE=1). */
function timeline(history: History, sinceMs: number): string {
  const names = temporal.api.enums.v1.EventType;
  return (history.events ?? [])
    .map((e) => ({ at: Number(e.eventTime?.seconds ?? 0) * 1000 + Math.round((e.eventTime?.nanos ?? 0) / 1e6), type: names[e.eventType ?? 0] }))
    .filter((e) => e.at >= sinceMs - 200)
    .map((e) => `+${((e.at - sinceMs) / 1000).toFixed(2)} ${String(e.type).replace('EVENT_TYPE_', '')}`)
    .join(', ');
}
