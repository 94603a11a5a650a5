/**
 * Issue 26, item 7: what `npm start` and `livecontext dev` start ends with them, however they end, and
 * a server they did not start is named and left running. Real processes: npm, its shell, scripts/
 * start.mjs, `livecontext up`, the Temporal dev server; each kill is a SIGKILL, which no process can
 * catch. The dev servers started here run on free ports (LIVECONTEXT_TEMPORAL_PORT), in temp folders.
 */
import { type ChildProcess, execFileSync, spawn } from 'node:child_process';
import { closeSync, existsSync, mkdtempSync, openSync, writeFileSync } from 'node:fs';
import net from 'node:net';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { ownerRecordPath } from '../../worker/dev-server-owner';
import { connectTest, eventually, testAddress, uniqueId } from '../support/temporal';

const root = path.resolve(__dirname, '../..');
const BIN = path.join(root, 'bin/livecontext.js');
const running: ChildProcess[] = [];
afterAll(() => running.forEach((p) => p.exitCode === null && p.kill('SIGKILL')));

function listening(port: number): Promise<boolean> {
  return new Promise((resolve) => {
    const socket = net.connect({ host: '127.0.0.1', port });
    socket.once('connect', () => (socket.destroy(), resolve(true)));
    socket.once('error', () => resolve(false));
  });
}

/** A port whose +1000 (the Web UI) is free too. */
async function freePorts(): Promise<number> {
  for (;;) {
    const port = 20_000 + Math.floor(Math.random() * 30_000);
    if (!(await listening(port)) && !(await listening(port + 1000))) return port;
  }
}

function env(port: number, agentId: string): NodeJS.ProcessEnv {
  const e: NodeJS.ProcessEnv = {
    ...process.env,
    LIVECONTEXT_TEMPORAL_PORT: String(port),
    LIVECONTEXT_GATEWAY_PORT: '0',
    LIVECONTEXT_AGENT_ID: agentId,
    LIVECONTEXT_MODEL: '',
    OPENAI_API_KEY: '',
    ANTHROPIC_API_KEY: '',
    OPENAI_BASE_URL: '',
  };
  delete e.TEMPORAL_ADDRESS;
  delete e.TEMPORAL_NAMESPACE;
  return e;
}

function run(command: string, args: string[], options: { cwd: string; env: NodeJS.ProcessEnv; stdin?: number }) {
  const proc = spawn(command, args, { cwd: options.cwd, env: options.env, stdio: [options.stdin ?? 'pipe', 'pipe', 'pipe'] });
  running.push(proc);
  const out = { text: '' };
  proc.stdout!.on('data', (d) => (out.text += d));
  proc.stderr!.on('data', (d) => (out.text += d));
  const exited = new Promise<void>((resolve) => proc.once('exit', () => resolve()));
  return { proc, out, exited };
}

test('kill -9 of `npm start` stops the dev server it started: its ports are free again', async () => {
  const port = await freePorts();
  // A project folder whose `npm start` is this one's (npm runs it through `sh -c`, as in a checkout).
  const cwd = mkdtempSync(path.join(tmpdir(), 'lc-npm-start-'));
  writeFileSync(
    path.join(cwd, 'package.json'),
    JSON.stringify({ name: 'npm-start-test', private: true, scripts: { start: `node ${JSON.stringify(path.join(root, 'scripts/start.mjs'))}` } }),
  );
  // stdin stays open whatever happens to npm (a FIFO this test holds open for reading and writing; a
  // 'pipe' would be closed by Node when npm exits): nothing but the kill can end the chat.
  const fifo = path.join(cwd, 'stdin');
  execFileSync('mkfifo', [fifo]);
  const stdin = openSync(fifo, 'r+');
  const npm = run('npm', ['start'], { cwd, env: env(port, uniqueId('npm-kill')), stdin });
  await eventually(() => /Started agent/.test(npm.out.text), 180_000, 'npm start to be ready').catch((err: Error) => {
    throw new Error(`${err.message} npm start said:\n${npm.out.text}`); // what it was doing when it did not get there
  });
  expect(npm.out.text).toMatch(new RegExp(`Temporal dev server 127\\.0\\.0\\.1:${port} \\(started here; it stops when this exits\\)`));
  expect(await listening(port)).toBe(true);
  expect(await listening(port + 1000)).toBe(true);

  npm.proc.kill('SIGKILL');
  await npm.exited;
  await eventually(async () => !(await listening(port)) && !(await listening(port + 1000)), 60_000, 'the dev server ports to be free');
  expect(npm.out.text).toMatch(/the process that ran it \(pid \d+\) has ended; stopping livecontext/);
  await eventually(() => !existsSync(ownerRecordPath(port)), 10_000, 'the keeper to remove the owner record'); // no record says a server is there
  closeSync(stdin);
}, 300_000);

test('a server already running is named and left running; kill -9 of `livecontext dev` stops the one it started', async () => {
  const port = await freePorts();
  const cwd = mkdtempSync(path.join(tmpdir(), 'lc-dev-'));
  const dev = run(process.execPath, [BIN, 'dev'], { cwd, env: env(port, 'unused') });
  await eventually(() => /Temporal server: /.test(dev.out.text), 120_000, 'livecontext dev to start its server');
  expect(dev.out.text).toMatch(new RegExp(`Temporal server: 127\\.0\\.0\\.1:${port} \\(started here; it stops when this exits\\)`));

  // `up` on the same port: it says whose server it uses, and leaves it running when it ends.
  const up = run(process.execPath, [BIN, 'up'], { cwd, env: env(port, uniqueId('reuse')) });
  up.proc.stdin!.end('');
  await up.exited;
  expect(up.out.text).toMatch(
    new RegExp(
      `Using the Temporal server already running at 127\\.0\\.0\\.1:${port}, started by \`livecontext dev\` \\(pid ${dev.proc.pid} in .+\\); it stops when that command exits; it keeps running when this exits`,
    ),
  );
  expect(up.out.text).toMatch(new RegExp(`The Temporal server at 127\\.0\\.0\\.1:${port} keeps running \\(this command did not start it`));
  expect(await listening(port)).toBe(true);

  dev.proc.kill('SIGKILL');
  await dev.exited;
  await eventually(async () => !(await listening(port)) && !(await listening(port + 1000)), 60_000, 'the dev server ports to be free');
  await eventually(() => !existsSync(ownerRecordPath(port)), 10_000, 'the keeper to remove the owner record');
}, 300_000);

test('`npm start` on a server livecontext did not start says so; an agent on a local OpenAI-compatible server is said as it is', async () => {
  const port = Number(testAddress().split(':').pop()); // the tests' own server
  const cwd = mkdtempSync(path.join(tmpdir(), 'lc-up-'));
  // The agent already runs on a model of an OpenAI-compatible server (no key needed with OPENAI_BASE_URL).
  const agentId = uniqueId('local-llm');
  const t = await connectTest('livecontext-agents');
  try {
    await t.agents.start(agentId, { model: 'openai:llama3.2' });
  } finally {
    await t.close();
  }
  const up = run(process.execPath, [BIN, 'up'], { cwd, env: { ...env(port, agentId), OPENAI_BASE_URL: 'http://127.0.0.1:9/v1' } });
  up.proc.stdin!.end('');
  await up.exited;
  expect(up.out.text).toMatch(
    new RegExp(`Using the Temporal server already running at 127\\.0\\.0\\.1:${port}, not started by livecontext .*; it keeps running when this exits`),
  );
  expect(up.out.text).toContain(`Agent "${agentId}" runs on openai:llama3.2 (it already existed, so not on demo:offline: /model demo:offline changes it).`);
  expect(up.out.text).not.toMatch(/No API key|offline demo model|Warning:/);
  expect(up.out.text).toMatch(/keeps running \(this command did not start it; ports \d+ and \d+ stay taken\)/);
  expect(await listening(port)).toBe(true);
}, 180_000);
