/**
 * A worker in a process of its own (bench/worker-process.ts), for the benchmarks that kill one
 * (recovery) or measure its memory (scale).
 */
import { type ChildProcess, spawn } from 'node:child_process';
import path from 'node:path';
import type { Bench } from './support';

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
  options: { nodeArgs?: string[]; env?: Record<string, string> } = {},
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
    stdio: ['ignore', 'pipe', 'inherit'],
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
