/**
 * Starts a worker-process fixture (test/fixtures/test-worker.ts unless told) as a separate process, so a
 * test can SIGKILL it like a crashed machine, or give it an environment of its own (API keys, MCP servers).
 */
import { type ChildProcess, spawn } from 'node:child_process';
import { mkdtempSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { connectTest, eventually, type TestContext, testAddress, uniqueId } from './temporal';

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
  return spawnUntilReady(
    ['--import', 'tsx', path.join(ROOT, 'test/fixtures', env.fixture ?? 'test-worker.ts')],
    {
      LIVECONTEXT_TEST_ADDRESS: testAddress(),
      TASK_QUEUE: env.taskQueue,
      WORKSPACE_ROOT: env.workspaceRoot,
      ...(env.controlDir ? { CONTROL_DIR: env.controlDir } : {}),
      ...env.extraEnv,
    },
    { ready: 'WORKER READY', what: 'the worker', timeoutMs: 90_000 },
  );
}

/**
 * Runs Node with `args` (from the repository's root, `env` over this process's environment) until it prints
 * `ready`; fails with its output if it exits first. `kill()` signals it (SIGKILL unless told) and waits for its exit.
 */
export async function spawnUntilReady(
  args: string[],
  env: Record<string, string>,
  o: { ready: string; what: string; timeoutMs: number },
): Promise<ChildWorker> {
  const proc = spawn(process.execPath, args, { cwd: ROOT, env: { ...process.env, ...env }, stdio: ['ignore', 'pipe', 'pipe'] });
  let out = '';
  proc.stdout!.on('data', (d) => (out += d));
  proc.stderr!.on('data', (d) => (out += d));
  const exited = new Promise<void>((resolve) => proc.once('exit', () => resolve()));
  await eventually(() => out.includes(o.ready) || (proc.exitCode !== null && 'exited'), o.timeoutMs, `${o.what} to start`).then((v) => {
    if (v === 'exited') throw new Error(`${o.what} exited early:\n${out}`);
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

export interface ChildWorkerFile {
  /** The connection, once the file's beforeAll has run. */
  t: TestContext;
  taskQueue: string;
  /** What each worker of the file starts with: the task queue, and a workspace and a control folder made for the file. */
  env: { taskQueue: string; workspaceRoot: string; controlDir: string };
  /** SIGKILLs the worker running, if any, and starts another (with `extraEnv` added); the last is killed after the file. */
  restart(extraEnv?: Record<string, string>): Promise<ChildWorker>;
}

/** A file's set-up for tests that kill the worker: a connection on a fresh task queue named from `prefix`, and its child workers. */
export function useChildWorkerFile(prefix: string): ChildWorkerFile {
  const taskQueue = uniqueId(prefix);
  let current: ChildWorker | undefined;
  const file: ChildWorkerFile = {
    t: undefined as unknown as TestContext,
    taskQueue,
    env: { taskQueue, workspaceRoot: mkdtempSync(path.join(tmpdir(), 'lc-ws-')), controlDir: mkdtempSync(path.join(tmpdir(), 'lc-ctl-')) },
    async restart(extraEnv) {
      await current?.kill('SIGKILL');
      return (current = await startChildWorker({ ...file.env, extraEnv }));
    },
  };
  beforeAll(async () => (file.t = await connectTest(taskQueue)));
  afterAll(async () => {
    await current?.kill();
    await file.t?.close();
  });
  return file;
}
