/** Runs the `livecontext` CLI as a user would: a child process, on the test server. */
import { spawn } from 'node:child_process';
import path from 'node:path';
import { testAddress } from './temporal';

const BIN = path.resolve(__dirname, '../../bin/livecontext.js');

export interface CliResult {
  code: number | null;
  stdout: string;
  stderr: string;
}

export function cli(
  args: string[],
  /** `onStderr`: called with all that stderr said so far, each time it says more (to act while the command runs). */
  options: { env?: Record<string, string>; input?: string; cwd?: string; onStderr?: (stderr: string) => void } = {},
): Promise<CliResult> {
  return new Promise((resolve) => {
    const child = spawn(process.execPath, [BIN, ...args], {
      env: { ...process.env, TEMPORAL_ADDRESS: testAddress(), OPENAI_API_KEY: '', ANTHROPIC_API_KEY: '', ...options.env },
      stdio: ['pipe', 'pipe', 'pipe'],
      ...(options.cwd ? { cwd: options.cwd } : {}),
    });
    let stdout = '';
    let stderr = '';
    child.stdout.on('data', (d) => (stdout += d));
    child.stderr.on('data', (d) => {
      stderr += d;
      options.onStderr?.(stderr);
    });
    child.stdin.end(options.input ?? '');
    child.on('close', (code) => resolve({ code, stdout, stderr }));
  });
}
