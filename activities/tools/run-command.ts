/**
 * `run_command` — opt-in (worker option `runCommand: true` or LIVECONTEXT_RUN_COMMAND=1): runs a shell
 * command in the agent's workspace, with a timeout, output captured and capped. The command gets a
 * scrubbed environment (see command-environment.ts), never the worker's, plus the call's idempotency key
 * in LIVECONTEXT_IDEMPOTENCY_KEY (the same on every attempt), for scripts that call services which take one.
 */
import { spawn } from 'node:child_process';
import { z } from 'zod';
import { type CommandEnvironmentOptions, commandEnvironment } from './command-environment';
import { defineTool } from './define-tool';
import { NO_TOOL_RETRY } from './tool-retry';
import { redactSecrets, secretsIn } from './redact-secrets';

const OUTPUT_CAP = 32 * 1024;
/** Output kept past the cap, so a secret that starts before the cut is whole when it is redacted. */
const REDACTION_MARGIN = 4 * 1024;

export type RunCommandOptions = CommandEnvironmentOptions;
/** The variable that holds the call's idempotency key (`workflowId/toolCallId`) in a command's environment. */
export const IDEMPOTENCY_KEY_VARIABLE = 'LIVECONTEXT_IDEMPOTENCY_KEY';

/** The default tool: allow-listed environment plus the names in LIVECONTEXT_RUN_COMMAND_ENV. */
export const runCommandTool = createRunCommandTool();

/** A `run_command` whose commands also see `passEnv` (worker variables, by name) and `env` (explicit values). */
export function createRunCommandTool(options: RunCommandOptions = {}) {
  return defineTool({
    name: 'run_command',
    description: 'Run a shell command (sh -c) in the workspace folder. Returns exit code, stdout and stderr (capped).',
    parameters: z.object({
      command: z.string().min(1),
      timeout_seconds: z.number().int().positive().max(600).default(60).describe('Kill the command after this long'),
    }),
    timeoutMs: 11 * 60 * 1000,
    retry: NO_TOOL_RETRY, // a command may have done part of its work; its exit status is the model's to read
    execute({ command, timeout_seconds }, ctx) {
      return new Promise((resolve, reject) => {
        // Set last: the key is the call's own, whatever the owner's options hold.
        const env = { ...commandEnvironment(ctx.workspaceRoot, options), [IDEMPOTENCY_KEY_VARIABLE]: ctx.idempotencyKey };
        const child = spawn('/bin/sh', ['-c', command], { cwd: ctx.workspaceRoot, env, stdio: ['ignore', 'pipe', 'pipe'], detached: true });
        let out = '';
        let total = 0;
        const take = (d: Buffer) => {
          total += d.length;
          if (out.length < OUTPUT_CAP + REDACTION_MARGIN) out += d.toString('utf8');
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
          // Redact before cutting, so no secret is left half-shown at the cut.
          const redacted = redactSecrets(out, secretsIn({ ...process.env, ...options.env }));
          const shown = redacted.length > OUTPUT_CAP ? redacted.slice(0, OUTPUT_CAP) : redacted;
          const capped = total > Buffer.byteLength(shown) ? `\n[output truncated: ${total} bytes in all]` : '';
          const status = killedBy ? `killed (${killedBy})` : `exit code ${code ?? signal}`;
          const text = `$ ${command}\n${shown}${capped}\n[${status}]`;
          if (killedBy || code !== 0) reject(new Error(text));
          else resolve({ text, metadata: { exit_code: code ?? -1, output_bytes: total } });
        });
      });
    },
  });
}
