/** `livecontext serve` from the sources in a process of its own, for tests that SIGKILL the gateway. */
import { type ChildProcess, spawn } from 'node:child_process';
import path from 'node:path';
import { eventually, testAddress } from './temporal';

const ROOT = path.resolve(__dirname, '../..');

export interface ChildGateway {
  url: string;
  port: number;
  /** SIGKILL, and wait for the process to be gone. */
  kill(): Promise<void>;
}

/** Starts the gateway on `port` (0: any free one) for the agents of `taskQueue`, with `token` as its full token (default none). */
export async function startChildGateway(taskQueue: string, port = 0, token = ''): Promise<ChildGateway> {
  const proc: ChildProcess = spawn(
    process.execPath,
    ['--import', 'tsx', '-e', "require('./cli/cli').run(process.argv.slice(1))", 'serve', '--port', String(port)],
    {
      cwd: ROOT,
      env: {
        ...process.env,
        TEMPORAL_ADDRESS: testAddress(),
        LIVECONTEXT_TASK_QUEUE: taskQueue,
        LIVECONTEXT_GATEWAY_TOKEN: token,
        LIVECONTEXT_GATEWAY_READ_TOKEN: '',
      },
      stdio: ['ignore', 'pipe', 'pipe'],
    },
  );
  let out = '';
  proc.stdout!.on('data', (d) => (out += d));
  proc.stderr!.on('data', (d) => (out += d));
  const exited = new Promise<void>((resolve) => proc.once('exit', () => resolve()));
  const url = await eventually(
    () => /Gateway on (http:\/\/\S+) /.exec(out)?.[1] ?? (proc.exitCode !== null && 'exited'),
    60_000,
    'the gateway process to listen',
  );
  if (url === 'exited') throw new Error(`The gateway exited:\n${out}`);
  return {
    url,
    port: Number(new URL(url).port),
    async kill() {
      if (proc.exitCode === null && proc.signalCode === null) proc.kill('SIGKILL');
      await exited;
    },
  };
}
