/**
 * Piped chat (`livecontext chat` and `livecontext up` with stdin not a terminal): a turn that ends in
 * an error ends the run with status 1 and the error on stderr; replies stay on stdout, one per line,
 * and no later line is sent to an agent that is blocked.
 */
import { spawn } from 'node:child_process';
import { mkdtempSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { useProviderServers } from '../support/provider-servers';
import { connectTest, testAddress, uniqueId, withWorker } from '../support/temporal';

const { t, p, taskQueue } = useProviderServers('chat-piped');
const env = { LIVECONTEXT_TASK_QUEUE: taskQueue };

const inputs = async (agentId: string) => (await t.agents.history(agentId)).filter((e) => e.kind === 'model_input').length;

/** The CLI as a child process (not spawnSync: the fake provider answers from this process), killed if it hangs. */
function livecontext(args: string[], input: string, extraEnv: Record<string, string>, cwd?: string) {
  const child = spawn(process.execPath, [path.resolve(__dirname, '../../bin/livecontext.js'), ...args], {
    cwd,
    env: { ...process.env, TEMPORAL_ADDRESS: testAddress(), OPENAI_API_KEY: '', ANTHROPIC_API_KEY: '', ...extraEnv },
    stdio: ['pipe', 'pipe', 'pipe'],
  });
  const result = { stdout: '', stderr: '', code: null as number | null };
  child.stdout.on('data', (d) => (result.stdout += d));
  child.stderr.on('data', (d) => (result.stderr += d));
  child.stdin.end(input);
  const hung = setTimeout(() => child.kill('SIGKILL'), 90_000);
  return new Promise<typeof result>((resolve) =>
    child.on('close', (code) => {
      clearTimeout(hung);
      resolve({ ...result, code });
    }),
  );
}

test('livecontext chat, piped: the reply on stdout, then the error on stderr and status 1', async () => {
  const id = uniqueId('piped-err');
  p.openai.enqueue({ kind: 'stream', text: 'first answer' }, { kind: 'error', status: 401 });
  await withWorker({ taskQueue, models: p.models() }, async () => {
    await t.agents.start(id, { model: 'openai:gpt-4.1-mini' });
    const chat = await livecontext(['chat', id], 'one\ntwo\nthree\n', env);
    expect(chat.code).toBe(1);
    expect(chat.stdout).toBe('first answer\n');
    expect(chat.stderr).toMatch(new RegExp(`^livecontext: Agent "${id}" is blocked by an error \\(input #2\\): 401 .*livecontext retry ${id}`));
    expect(chat.stderr.trim().split('\n')).toHaveLength(1);
    expect(await inputs(id)).toBe(2); // "three" would only have waited behind the error
  });
});

test('livecontext up, piped: an error turn exits non-zero with the error on stderr', async () => {
  const id = uniqueId('up-err');
  const upQueue = uniqueId('up-err-queue');
  const result = await livecontext(
    ['up', id, '--model', 'openai:gpt-4.1-mini'],
    'hello\nnever sent\n',
    // A key the fake provider refuses: every model call ends in a 401, which is not retried.
    { LIVECONTEXT_TASK_QUEUE: upQueue, OPENAI_API_KEY: 'sk-wrong-key', OPENAI_BASE_URL: `${p.openai.url}/v1` },
    mkdtempSync(path.join(tmpdir(), 'lc-up-err-')),
  );
  expect(result.code).toBe(1);
  expect(result.stdout).toBe('');
  expect(result.stderr).toMatch(new RegExp(`livecontext: Agent "${id}" is blocked by an error \\(input #1\\): 401 `));
  const upClient = await connectTest(upQueue);
  try {
    expect((await upClient.agents.handle(id).describe()).status.name).toBe('RUNNING'); // the agent stays, blocked
    await upClient.agents.handle(id).terminate('test over');
  } finally {
    await upClient.close();
  }
});
