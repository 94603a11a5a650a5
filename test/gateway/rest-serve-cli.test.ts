/**
 * `livecontext serve` as a user runs it: the CLI binary (compiled dist/) on a free port, against the test
 * server, with a worker; a turn driven over plain HTTP with a bearer token; Ctrl-C ends it. And a
 * gateway asked to listen beyond loopback without a token refuses, with exit status 2 and the reason.
 */
import { type ChildProcess, spawn } from 'node:child_process';
import path from 'node:path';
import { connectTest, eventually, testAddress, type TestContext, uniqueId } from '../support/temporal';
import { type BackgroundWorker, answerText, startBackgroundWorker } from './rest-support';

const BIN = path.resolve(__dirname, '../../bin/livecontext.js');
const TOKEN = `serve-${uniqueId('tok')}`;

let t: TestContext;
let worker: BackgroundWorker;
let serve: ChildProcess | undefined;
beforeAll(async () => {
  t = await connectTest(uniqueId('rest-serve'));
  worker = await startBackgroundWorker(t.agents.taskQueue, t.agents);
});
afterAll(async () => {
  if (serve && serve.exitCode === null) serve.kill('SIGKILL');
  await worker?.stop();
  await t?.close();
});

/** The CLI as a child process, its output collected; `exited` resolves with its exit code. */
function livecontext(args: string[], env: Record<string, string>) {
  const child = spawn(process.execPath, [BIN, ...args], {
    env: { ...process.env, TEMPORAL_ADDRESS: testAddress(), LIVECONTEXT_TASK_QUEUE: t.agents.taskQueue, OPENAI_API_KEY: '', ANTHROPIC_API_KEY: '', ...env },
    stdio: ['ignore', 'pipe', 'pipe'],
  });
  const out = { stdout: '', stderr: '' };
  child.stdout!.on('data', (d) => (out.stdout += d));
  child.stderr!.on('data', (d) => (out.stderr += d));
  const exited = new Promise<number | null>((resolve) => child.once('exit', (code) => resolve(code)));
  return { child, out, exited };
}

test('serve --port 0 prints its URL first and serves a turn over HTTP; Ctrl-C ends it', async () => {
  const run = livecontext(['serve', '--port', '0'], { LIVECONTEXT_GATEWAY_TOKEN: TOKEN, LIVECONTEXT_GATEWAY_READ_TOKEN: '' });
  serve = run.child;
  // The first line names the real port (the CLI may compile dist/ first: allow for it).
  const firstLine = await eventually(
    () => run.out.stdout.includes('\n') && run.out.stdout.split('\n')[0],
    150_000,
    `serve to print its URL (stderr: ${run.out.stderr})`,
  );
  const url = /^Gateway on (http:\/\/127\.0\.0\.1:(\d+))/.exec(firstLine)?.[1];
  expect({ firstLine, url: Boolean(url) }).toEqual({ firstLine, url: true });
  expect(firstLine).toContain('1 token(s)');

  const http = async (method: string, route: string, body?: unknown, token: string | null = TOKEN) => {
    const headers: Record<string, string> = body === undefined ? {} : { 'content-type': 'application/json' };
    if (token) headers.authorization = `Bearer ${token}`;
    const res = await fetch(url + route, { method, headers, body: body === undefined ? undefined : JSON.stringify(body) });
    return { status: res.status, body: (await res.json()) as any }; // eslint-disable-line @typescript-eslint/no-explicit-any -- tests read any JSON
  };
  const agentId = uniqueId('served');
  expect(await http('POST', '/agents', { agentId, model: 'scripted:echo' }, null)).toMatchObject({ status: 401 });
  expect(await http('POST', '/agents', { agentId, model: 'scripted:echo' })).toMatchObject({ status: 201, body: { agentId } });
  const turn = await http('POST', `/agents/${agentId}/input?wait=1`, { text: 'over the wire' });
  expect(turn).toMatchObject({ status: 200, body: { inputSeq: 1, outcome: { status: 'answered' } } });
  expect(answerText(turn.body.outcome)).toBe('echo: over the wire');
  expect((await http('GET', `/agents/${agentId}/history`)).body.entries.map((e: { kind: string }) => e.kind)).toEqual(['model_input', 'model_output']);
  expect((await http('GET', '/openapi.json', undefined, null)).body.openapi).toBe('3.1.0');

  run.child.kill('SIGINT');
  expect(await run.exited).toBe(0);
  expect(run.out.stdout + run.out.stderr).not.toContain(TOKEN);
}, 240_000);

test('serve --host 0.0.0.0 without a token refuses: exit 2, with what to do', async () => {
  const run = livecontext(['serve', '--host', '0.0.0.0', '--port', '0'], { LIVECONTEXT_GATEWAY_TOKEN: '', LIVECONTEXT_GATEWAY_READ_TOKEN: '' });
  expect(await run.exited).toBe(2);
  expect(run.out.stderr).toMatch(/Refusing to listen on 0\.0\.0\.0 without a token: set LIVECONTEXT_GATEWAY_TOKEN/);
  expect(run.out.stderr).not.toMatch(/\n\s+at /); // one line, no stack trace
}, 120_000);
