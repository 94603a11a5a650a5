/**
 * Starts a worker-process fixture (test/fixtures/test-worker.ts unless told) as a separate process, so a
 * test can SIGKILL it like a crashed machine, or give it an environment of its own (API keys, MCP servers).
 */
import { type ChildProcess, spawn } from 'node:child_process';
import path from 'node:path';
import { eventually, testAddress } from './temporal';

export interface ChildWorker {
  proc: ChildProcess;
  /** Everything the process printed so far (stdout and stderr). */
  output(): string;
  kill(signal?: NodeJS.Signals): Promise<void>;
}

const ROOT = path.resolve(__dirname, '../..');

export async function startChildWorker(env: {
  taskQueue: string;
  workspaceRoot: string;
  controlDir?: string;
  /** The fixture's file name in test/fixtures/. */
  fixture?: string;
  extraEnv?: Record<string, string>;
}): Promise<ChildWorker> {
  const proc = spawn(process.execPath, ['--import', 'tsx', path.join(ROOT, 'test/fixtures', env.fixture ?? 'test-worker.ts')], {
    cwd: ROOT,
    env: {
      ...process.env,
      LIVECONTEXT_TEST_ADDRESS: testAddress(),
      TASK_QUEUE: env.taskQueue,
      WORKSPACE_ROOT: env.workspaceRoot,
      ...(env.controlDir ? { CONTROL_DIR: env.controlDir } : {}),
      ...env.extraEnv,
    },
    stdio: ['ignore', 'pipe', 'pipe'],
  });
  let out = '';
  proc.stdout!.on('data', (d) => (out += d));
  proc.stderr!.on('data', (d) => (out += d));
  const exited = new Promise<void>((resolve) => proc.once('exit', () => resolve()));
  await eventually(() => out.includes('WORKER READY') || (proc.exitCode !== null && 'exited'), 90_000, 'the worker to start').then((v) => {
    if (v === 'exited') throw new Error(`Worker exited early:\n${out}`);
  });
  return {
    proc,
    output: () => out,
    async kill(signal = 'SIGKILL') {
      if (proc.exitCode === null && proc.signalCode === null) proc.kill(signal);
      await exited;
    },
  };
}
