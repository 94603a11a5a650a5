/**
 * `run_command` — opt-in (worker option `runCommand: true` or LIVECONTEXT_RUN_COMMAND=1): runs a shell
 * command in the agent's workspace, with a timeout, output captured and capped.
 */
import { spawn } from 'node:child_process';
import { z } from 'zod';
import { defineTool } from './define-tool';

const OUTPUT_CAP = 32 * 1024;

export const runCommandTool = defineTool({
  name: 'run_command',
  description: 'Run a shell command (sh -c) in the workspace folder. Returns exit code, stdout and stderr (capped).',
  parameters: z.object({
    command: z.string().min(1),
    timeout_seconds: z.number().int().positive().max(600).default(60).describe('Kill the command after this long'),
  }),
  timeoutMs: 11 * 60 * 1000,
  execute({ command, timeout_seconds }, ctx) {
    return new Promise((resolve, reject) => {
      const child = spawn('/bin/sh', ['-c', command], { cwd: ctx.workspaceRoot, stdio: ['ignore', 'pipe', 'pipe'], detached: true });
      let out = '';
      let total = 0;
      const take = (d: Buffer) => {
        total += d.length;
        if (out.length < OUTPUT_CAP) out += d.toString('utf8');
      };
      child.stdout.on('data', take);
      child.stderr.on('data', take);
      let killedBy: string | undefined;
      const kill = (why: string) => {
        killedBy = why;
        try {
          process.kill(-child.pid!, 'SIGKILL'); // the whole process group
        } catch {
          /* already gone */
        }
      };
      const timer = setTimeout(() => kill(`timed out after ${timeout_seconds} s`), timeout_seconds * 1000);
      ctx.signal.addEventListener('abort', () => kill('cancelled'));
      child.on('error', (err) => {
        clearTimeout(timer);
        reject(err);
      });
      child.on('close', (code, signal) => {
        clearTimeout(timer);
        const shown = out.length > OUTPUT_CAP ? out.slice(0, OUTPUT_CAP) : out;
        const capped = total > Buffer.byteLength(shown) ? `\n[output truncated: ${total} bytes in all]` : '';
        const status = killedBy ? `killed (${killedBy})` : `exit code ${code ?? signal}`;
        const text = `$ ${command}\n${shown}${capped}\n[${status}]`;
        if (killedBy || code !== 0) reject(new Error(text));
        else resolve({ text, metadata: { exit_code: code ?? -1, output_bytes: total } });
      });
    });
  },
});
