/**
 * `livecontext chat` when the agent's worker is SIGKILLed: Temporal lists the dead worker's pollers for a
 * minute more, and a chat that follows the agent sees only that nothing changes. It says so by the same
 * probe as `send --wait` (cli/worker-watch.ts) — on a terminal while the agent works, piped while a line
 * waits — and goes on: once a worker comes, the turn finishes and nothing was sent twice.
 */
import { existsSync, readdirSync, rmSync, writeFileSync } from 'node:fs';
import path from 'node:path';
import { cli } from '../support/cli';
import { useChildWorkerFile } from '../support/child-worker';
import { eventually, uniqueId } from '../support/temporal';
import { startPtyChat } from './pty-chat';

const file = useChildWorkerFile('chat-worker-gone');
const env = () => ({ LIVECONTEXT_TASK_QUEUE: file.taskQueue });
const noWorker = (awaiting: string) =>
  new RegExp(`No worker takes tasks from the task queue ${file.taskQueue} in namespace default now.*: still waiting for ${awaiting}`);
// Each test releases the crash script's slow tool and model step by files: none is released before it asks.
beforeEach(() => {
  for (const f of readdirSync(file.env.controlDir)) rmSync(path.join(file.env.controlDir, f));
});

test('on a terminal: a worker killed mid-turn is said while the agent works; the turn ends once one comes', async () => {
  const worker = await file.restart();
  const id = uniqueId('chat-gone');
  await file.t.agents.start(id, { model: 'scripted:crash' }); // turn 1 calls record, then the slow tool, then record
  const chat = startPtyChat(['chat', id], env());
  try {
    await chat.until((l) => l[l.length - 1] === 'you> ', 'the prompt', 60_000);
    chat.type('go\r');
    const started = `started-b-${worker.proc.pid}`;
    await eventually(() => existsSync(path.join(file.env.controlDir, started)), 60_000, 'the slow tool to start');
    await worker.kill('SIGKILL');

    await chat.until((l) => l.some((x) => noWorker('the answer').test(x)), 'the no-worker notice', 60_000);
    expect(chat.lines().join('\n')).toContain('/quit detaches; the agent keeps its place.');

    writeFileSync(path.join(file.env.controlDir, 'release-b'), '');
    writeFileSync(path.join(file.env.controlDir, 'release-model-1'), '');
    await file.restart();
    await chat.until((l) => l.some((x) => x.includes('turn 1 done')), 'the turn to end on the new worker', 120_000);
    chat.type('/quit\r');
    await chat.exited;
  } finally {
    chat.kill();
  }
  // The slow tool ran again on the new worker (it is idempotent), the turn once.
  expect(readdirSync(file.env.controlDir).filter((f) => f.startsWith('started-b-'))).toHaveLength(2);
  const answers = (await file.t.agents.history(id)).filter((e) => e.kind === 'model_output' && e.contents.join('') === 'turn 1 done');
  expect(answers).toHaveLength(1);
}, 300_000);

test('piped: a worker killed while a line waits for its answer is said on stderr; the answer comes once one is back', async () => {
  const worker = await file.restart();
  const id = uniqueId('chat-gone-piped');
  await file.t.agents.start(id, { model: 'scripted:crash' });
  const control = (name: string) => path.join(file.env.controlDir, name);
  const killed = eventually(() => existsSync(control(`started-b-${worker.proc.pid}`)), 60_000, 'the slow tool to start').then(() => worker.kill('SIGKILL'));

  let restarted: Promise<unknown> | undefined;
  const r = await cli(['chat', id], {
    env: env(),
    input: 'go\n',
    onStderr: (stderr) => {
      if (!restarted && noWorker('the answer').test(stderr)) {
        writeFileSync(control('release-b'), '');
        writeFileSync(control('release-model-1'), '');
        restarted = file.restart();
      }
    },
  });
  await killed;
  await restarted;
  expect(r.stderr).toMatch(noWorker('the answer'));
  expect(r.stderr).toContain('Ctrl-C stops waiting; the agent keeps the line.');
  expect(r).toMatchObject({ code: 0, stdout: 'turn 1 done\n' });
  expect((await file.t.agents.history(id)).filter((e) => e.kind === 'model_input')).toHaveLength(1);
}, 300_000);
