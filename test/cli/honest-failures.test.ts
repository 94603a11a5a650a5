/**
 * What a new user meets in their first hour, said plainly by the CLI (child processes, real dev server):
 * no worker polling the agent's task queue (said within seconds, not a 30 s hang); a stopped agent
 * reported as stopped, with its reason; `retry` saying what it did; `start` and `configure` warning
 * when the worker has no such provider or no key for it.
 */
import { ScriptedModelProvider } from '../../activities/index';
import { AgentClient } from '../../client/agent-client';
import { echoScript } from '../fixtures/scripts';
import { cli, type CliResult } from '../support/cli';
import { useProviderServers } from '../support/provider-servers';
import { eventually, uniqueId, withWorker } from '../support/temporal';

const { t, p, taskQueue } = useProviderServers('cli-honest');
const env = { LIVECONTEXT_TASK_QUEUE: taskQueue };

const oneLine = (r: CliResult) => {
  expect(r.stderr.trim().split('\n')).toHaveLength(1);
  expect(r.stderr).not.toMatch(/\n\s+at /);
};

test('no worker polling the task queue: start warns, send --wait, state and chat say so instead of waiting', async () => {
  const lonelyQueue = uniqueId('no-worker'); // never polled by any worker
  const lonely = { LIVECONTEXT_TASK_QUEUE: lonelyQueue };
  const id = uniqueId('cli-lonely');
  const noWorker = `No worker is polling the task queue ${lonelyQueue} in namespace default: start one with \`livecontext worker\` (or \`npm start\`).`;

  const started = await cli(['start', id, '--model', 'demo:offline'], { env: lonely });
  expect(started).toMatchObject({ code: 0, stdout: `Started agent "${id}" with model demo:offline.\n` });
  expect(started.stderr).toBe(`livecontext: warning: ${noWorker} Agent "${id}" waits until one does.\n`);

  for (const args of [
    ['send', id, 'hello', '--wait'],
    ['send', id, 'hello'],
    ['state', id],
    ['state', id, '--json'],
    ['chat', id],
  ]) {
    const r = await cli(args, { env: lonely, input: 'hello\n' });
    expect(r).toMatchObject({ code: 1, stdout: '', stderr: `livecontext: ${noWorker}\n` });
  }
  // Nothing was sent: the agent took no input while no worker could have answered.
  await withWorker({ taskQueue: lonelyQueue }, async () => {
    expect((await t.agents.state(id)).nextInputSeq).toBe(1);
  });
});

test('a stopped agent is reported as stopped, with its reason, by state, send, chat and retry', async () => {
  const id = uniqueId('cli-stopped');
  await withWorker({ taskQueue, models: [new ScriptedModelProvider({ echo: echoScript })] }, async () => {
    await t.agents.start(id, { model: 'scripted:echo' });
    await t.agents.ask(id, 'hi');
    await t.agents.stop(id, 'done for today');
    await expect(t.agents.handle(id).result()).resolves.toMatchObject({ stopped: true, reason: 'done for today' });

    const stopped = new RegExp(
      `^livecontext: Agent "${id}" stopped: done for today \\(at \\S+\\)\\. \`livecontext start ${id}\` starts a new one with this id\\.\\n$`,
    );
    for (const args of [
      ['state', id],
      ['state', id, '--json'],
      ['send', id, 'are you there?'],
      ['send', id, 'hello', '--wait'],
      ['chat', id],
      ['retry', id],
    ]) {
      const r = await cli(args, { env, input: 'hello\n' });
      expect(r).toMatchObject({ code: 1, stdout: '' });
      expect(r.stderr).toMatch(stopped);
      oneLine(r);
    }
  });
});

test('retry says there is nothing to retry, or which error it retries; the agent then answers', async () => {
  const id = uniqueId('cli-retry');
  await withWorker({ taskQueue, models: p.models() }, async () => {
    await t.agents.start(id, { model: 'openai:gpt-4.1-mini' });
    expect(await cli(['retry', id], { env })).toMatchObject({ code: 0, stdout: `Nothing to retry (agent "${id}" is not blocked by an error).\n`, stderr: '' });

    p.openai.enqueue({ kind: 'error', status: 401 }, { kind: 'stream', text: 'answered after the retry' });
    const blocked = await cli(['send', id, 'hello', '--wait'], { env });
    expect(blocked).toMatchObject({ code: 1, stdout: expect.stringMatching(/^\(the agent is blocked by an error: /) });

    const retried = await cli(['retry', id], { env });
    expect(retried).toMatchObject({ code: 0, stderr: '' });
    expect(retried.stdout).toMatch(/^Retrying the model call after error ModelError\.Authentication: 401 .+\n$/);
    await eventually(async () => (await t.agents.state(id)).blockedOn === 'input', 20_000, 'the answer after the retry');
    const answers = (await t.agents.history(id)).flatMap((e) => (e.kind === 'model_output' ? e.contents : []));
    expect(answers).toEqual(['answered after the retry']);
    expect(await cli(['retry', id], { env })).toMatchObject({ code: 0, stdout: `Nothing to retry (agent "${id}" is not blocked by an error).\n` });
  });
});

describe('a worker without OPENAI_API_KEY', () => {
  const saved = { key: process.env.OPENAI_API_KEY, url: process.env.OPENAI_BASE_URL };
  beforeAll(() => {
    // The in-process worker's default providers read the key when asked: this worker has none.
    process.env.OPENAI_API_KEY = '';
    process.env.OPENAI_BASE_URL = '';
  });
  afterAll(() => {
    for (const [name, value] of [
      ['OPENAI_API_KEY', saved.key],
      ['OPENAI_BASE_URL', saved.url],
    ] as const) {
      if (value === undefined) delete process.env[name];
      else process.env[name] = value;
    }
  });

  test('start and configure warn when the model provider is unknown or its key is missing; the agent still starts', async () => {
    const id = uniqueId('cli-keyless');
    const unknown = uniqueId('cli-foo');
    const missingKey = (agent: string) =>
      `livecontext: warning: OPENAI_API_KEY is not set in this worker's environment, so "openai:" models cannot be called. ` +
      `Agent "${agent}" will be blocked at its next model call until the worker has it (then \`livecontext retry ${agent}\`); ` +
      `or choose another model: \`livecontext configure ${agent} --model provider:model\`.\n`;
    await withWorker({ taskQueue }, async () => {
      const started = await cli(['start', id, '--model', 'openai:gpt-4.1-mini'], { env: { ...env, OPENAI_API_KEY: 'the CLI has one; the worker does not' } });
      expect(started).toMatchObject({ code: 0, stdout: `Started agent "${id}" with model openai:gpt-4.1-mini.\n`, stderr: missingKey(id) });
      expect((await t.agents.handle(id).describe()).status.name).toBe('RUNNING');

      const foo = await cli(['start', unknown, '--model', 'foo:bar'], { env });
      expect(foo).toMatchObject({ code: 0, stdout: `Started agent "${unknown}" with model foo:bar.\n` });
      expect(foo.stderr).toMatch(
        /^livecontext: warning: the worker has no model provider "foo" \(it has demo, openai, anthropic, azure\), so agent "[^"]+" cannot call foo:bar: /,
      );
      oneLine(foo);

      // configure: the change is made, and the same warnings follow it.
      const toOpenai = await cli(['configure', unknown, '--model', 'openai:gpt-4.1-mini'], { env });
      expect(toOpenai).toMatchObject({ code: 0, stdout: expect.stringContaining('model openai:gpt-4.1-mini'), stderr: missingKey(unknown) });
      const toDemo = await cli(['configure', id, '--model', 'demo:offline'], { env });
      expect(toDemo).toMatchObject({ code: 0, stderr: '' });
      expect(await cli(['start', uniqueId('cli-demo'), '--model', 'demo:offline'], { env })).toMatchObject({ code: 0, stderr: '' });

      // The worker said which providers it has, never a key.
      const info = await t.agents.workerInfo(taskQueue);
      expect(info.providers).toEqual(expect.arrayContaining([expect.objectContaining({ id: 'openai', ready: false }), { id: 'demo', ready: true }]));
      expect(JSON.stringify(info)).not.toMatch(/sk-|the CLI has one/);
    });
  });
});

test('a wait underway when the worker goes away goes on, and says so on stderr, until a worker is back', async () => {
  const id = uniqueId('cli-gone');
  const queue = uniqueId('cli-gone'); // a queue of its own: no other test's worker polls it
  const models = () => [new ScriptedModelProvider({ echo: echoScript })];
  const agents = new AgentClient(t.client, queue);
  await withWorker({ taskQueue: queue, models: models() }, async () => {
    await agents.start(id, { model: 'scripted:echo' });
    await agents.ask(id, 'first'); // the worker has polled for both kinds of task
  });
  // The worker polled a moment ago, so the send is made; it waits for a worker to take the input. Temporal
  // lists the gone worker's pollers for a minute more: the CLI's probe finds that no worker takes a task.
  let told!: () => void;
  const notice = new Promise<void>((resolve) => (told = resolve));
  const sending = cli(['send', id, 'hello', '--wait'], {
    env: { LIVECONTEXT_TASK_QUEUE: queue },
    onStderr: (said) => /No worker takes tasks/.test(said) && told(),
  });
  await notice;
  const sent = await withWorker({ taskQueue: queue, models: models() }, () => sending);
  expect(sent).toMatchObject({ code: 0, stdout: 'echo: hello\n' });
  const notices = sent.stderr.trim().split('\n');
  expect(notices[0]).toMatch(
    new RegExp(
      `^livecontext: No worker takes tasks from the task queue ${queue} in namespace default now \\(a worker last polled it \\d+ s ago\\): still waiting for the agent to take the input, ` +
        'which comes once one is started \\(`livecontext worker`\\)\\. Ctrl-C stops waiting; the input may still be taken later\\.$',
    ),
  );
  // The worker back takes the input at once; if a check comes first, it says so.
  for (const later of notices.slice(1))
    expect(later).toMatch(new RegExp(`^livecontext: A worker is taking tasks from the task queue ${queue} again; still waiting for `));
}, 180_000);
