/**
 * A worker in a process of its own (bench/worker-process.ts), for the benchmarks that kill one
 * (recovery) or measure its memory (scale).
 */
import { type ChildProcess, spawn } from 'node:child_process';
import { readFileSync } from 'node:fs';
import path from 'node:path';
import { type Bench, round } from './support';

export interface WorkerProcess {
  proc: ChildProcess;
  /** Resolves once the worker polls. */
  ready: Promise<void>;
}

export function spawnWorker(
  bench: Bench,
  side: 'livecontext' | 'baseline',
  taskQueue: string,
  codePath: string,
  options: { nodeArgs?: string[]; env?: Record<string, string>; stdin?: boolean } = {},
): WorkerProcess {
  const args = [
    ...(options.nodeArgs ?? []),
    '--import',
    'tsx',
    path.join(__dirname, 'worker-process.ts'),
    side,
    bench.env.address,
    taskQueue,
    codePath,
    bench.workspaceRoot,
  ];
  const proc = spawn(process.execPath, args, {
    cwd: path.join(__dirname, '..'),
    env: { ...process.env, ...options.env },
    stdio: [options.stdin ? 'pipe' : 'ignore', 'pipe', 'inherit'],
  });
  const ready = new Promise<void>((resolve, reject) => {
    let out = '';
    proc.stdout!.on('data', (d) => {
      out += d;
      if (out.includes('READY')) resolve();
    });
    proc.once('exit', (code, signal) => reject(new Error(`the ${side} worker process exited (${code ?? signal}) before it was ready`)));
  });
  return { proc, ready };
}

/** VmRSS and VmHWM (the kernel's peak RSS of the process) in MiB. */
export function memoryOf(pid: number): { rssMiB: number; peakMiB: number } | null {
  try {
    const status = readFileSync(`/proc/${pid}/status`, 'utf8');
    const kb = (key: string) => Number(new RegExp(`^${key}:\\s+(\\d+) kB`, 'm').exec(status)?.[1] ?? NaN);
    return { rssMiB: round(kb('VmRSS') / 1024), peakMiB: round(kb('VmHWM') / 1024) };
  } catch {
    return null; // gone, or no /proc (not Linux)
  }
}

/** Ends the worker gracefully (SIGINT: Temporal's shutdown, so a --cpu-prof is written), SIGKILL after 20 s. */
export async function stopGracefully(w: WorkerProcess): Promise<void> {
  if (w.proc.exitCode !== null || w.proc.signalCode !== null) return;
  const exited = new Promise((r) => w.proc.once('exit', r));
  w.proc.kill('SIGINT');
  const timer = setTimeout(() => w.proc.kill('SIGKILL'), 20_000);
  await exited;
  clearTimeout(timer);
}
