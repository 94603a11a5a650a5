/**
 * The CLI's quick reads (client/quick-read/, issue 31: `list` and `state` start in a fraction of the full
 * client's time) answer exactly what AgentClient answers — a running agent, a stopped one, a sub-agent
 * without the run-state search attribute (its state asked), payloads encrypted by the codec — and hand
 * over to AgentClient, answering nothing themselves, where they cannot (a stopped agent, an unknown id,
 * a payload whose key they lack). The CLI prints the same either way.
 */
import { type Script, ScriptedModelProvider } from '../../activities/index';
import { unwrap } from '../../agent/index';
import { quickList, quickReader, quickState } from '../../client/quick-read/quick-reads';
import { livecontextDataConverter } from '../../common/codec/data-converter';
import { parseKeys } from '../../common/codec/encryption-codec';
import { AgentClient } from '../../client/agent-client';
import { Client } from '@temporalio/client';
import { deployTool } from '../fixtures/test-tools';
import { cli } from '../support/cli';
import { connectTest, eventually, type TestContext, testAddress, uniqueId, withWorker } from '../support/temporal';

let t: TestContext;
const taskQueue = uniqueId('quick-reads');
const env = { LIVECONTEXT_TASK_QUEUE: taskQueue };
const KEYS = `q1:${Buffer.alloc(32, 7).toString('base64')}`;
beforeAll(async () => {
  t = await connectTest(taskQueue);
});
afterAll(async () => {
  await t?.close();
});

/** Runs `fn` with a quick reader for the test server, the environment changed as given for its length. */
async function withReader<T>(
  extraEnv: Record<string, string | undefined>,
  fn: (reader: NonNullable<ReturnType<typeof quickReader>>) => Promise<T>,
): Promise<T> {
  const saved = { ...process.env };
  Object.assign(process.env, { TEMPORAL_ADDRESS: testAddress(), ...extraEnv });
  for (const [k, v] of Object.entries(extraEnv)) if (v === undefined) delete process.env[k];
  const reader = quickReader();
  try {
    expect(reader).toBeDefined();
    return await fn(reader!);
  } finally {
    reader?.channel.close();
    process.env = saved;
  }
}

/**
 * A quick state read asked until it answers: it gives up (undefined, and the CLI falls back to the full
 * client) when a query takes longer than QUICK_STATE_MS, as one may on a loaded CI machine.
 */
const quickly = <T>(read: () => Promise<T | undefined>) => eventually(read, 30_000, 'a quick read that answers');

/**
 * Until the agent answers a state query, asked once a second (each unanswered query may start a worker
 * probe, so not faster); a timeout names the last error. CI once waited the whole minute for a sub-agent
 * here, the error unseen.
 */
async function untilAnswers(agentId: string, timeoutMs = 90_000): Promise<void> {
  const deadline = Date.now() + timeoutMs;
  let last = '';
  for (;;) {
    try {
      await t.agents.state(agentId);
      return;
    } catch (err) {
      // A ServiceError's message names only the call ("Failed to describe workflow"): its cause says why.
      const cause = (err as { cause?: { code?: unknown; details?: unknown } } | undefined)?.cause;
      last = cause ? `${String(err)} (cause: ${String(cause)}; gRPC code ${String(cause.code)}, ${String(cause.details)})` : String(err);
    }
    if (Date.now() > deadline) throw new Error(`${agentId} did not answer a state query within ${timeoutMs / 1000} s; the last error: ${last}`);
    await new Promise((r) => setTimeout(r, 1_000));
  }
}

const echo: Script = (req) => ({ text: `echo: ${JSON.stringify(unwrap(req.messages[req.messages.length - 1]))}`.slice(0, 80) });
/** Deploys api to prod (which waits for approval). */
const deployer: Script = (req) =>
  unwrap(req.messages[req.messages.length - 1]).kind === 'tool_results'
    ? { text: 'done' }
    : { toolCalls: [{ name: 'deploy', args: { service: 'api', env: 'prod' } }] };
/** Delegates its input to the deployer sub-agent, which then waits for an approval (a running child). */
const lead: Script = (req) =>
  unwrap(req.messages[req.messages.length - 1]).kind === 'tool_results'
    ? { text: 'delegated' }
    : { toolCalls: [{ name: 'ask_deployer', args: { task: 'deploy api' } }] };

test('list and state: the quick reads answer what AgentClient answers, and the CLI prints it', async () => {
  await withWorker({ taskQueue, tools: [deployTool], models: [new ScriptedModelProvider({ echo, lead, deployer })] }, async () => {
    const running = uniqueId('quick-running');
    const stopped = uniqueId('quick-stopped');
    const parent = uniqueId('quick-lead');
    await t.agents.start(running, { model: 'scripted:echo', systemInstruction: 'Echo.' });
    await t.agents.ask(running, 'hello');
    await t.agents.start(stopped, { model: 'scripted:echo' });
    await t.agents.stop(stopped, 'done here');
    await t.agents.start(parent, {
      model: 'scripted:lead',
      subAgents: { deployer: { model: 'scripted:deployer', description: 'deploys', tools: ['deploy'] } },
    });
    await t.agents.send(parent, 'go');
    // While the parent starts its child, the child's id is still '' in the parent's state.
    const child = await eventually(async () => (await t.agents.state(parent)).subAgents?.[0]?.agentId || undefined, 60_000, 'the sub-agent');
    await untilAnswers(child);
    const ours = <T extends { agentId: string }>(list: T[]) => list.filter((a) => [running, stopped, parent, child].includes(a.agentId));

    // Visibility follows a moment later: wait until the full client lists all four as they stay (the
    // sub-agent answers queries while still working towards its approval: a list then may say either).
    const full = await eventually(async () => {
      const l = ours(await t.agents.list({ all: true }));
      const word = (id: string) => l.find((a) => a.agentId === id)?.stateWord;
      return word(running) === 'waiting for input' && word(stopped) === 'stopped' && word(child) === 'waiting for approval' && word(parent) ? l : undefined;
    }, 30_000);
    // A sub-agent has no run-state search attribute: its state was asked.
    expect(full.find((a) => a.agentId === child)).toMatchObject({ status: 'RUNNING', runState: null });
    expect(full.find((a) => a.agentId === child)?.stateWord).not.toBe('running');
    await withReader({}, async (reader) => {
      expect(ours((await quickList(reader, { all: true }))!)).toEqual(full);
      expect(ours((await quickList(reader))!)).toEqual(ours(await t.agents.list()));
      expect(await quickly(() => quickState(reader, running))).toEqual(await t.agents.state(running));
      expect(await quickly(() => quickState(reader, parent))).toEqual(await t.agents.state(parent));
      // Not theirs to say: a stopped agent (a query would be answered from its history) and an unknown id.
      expect(await quickState(reader, stopped)).toBeUndefined();
      expect(await quickState(reader, uniqueId('nobody'))).toBeUndefined();
    });

    // The CLI prints the same, and for a stopped agent says why through the full client.
    const listed = await cli(['list', '--all', '--json'], { env });
    expect(listed.code).toBe(0);
    expect(ours(JSON.parse(listed.stdout))).toEqual(full);
    const state = await cli(['state', running, '--json'], { env });
    expect(state).toMatchObject({ code: 0, stderr: '' });
    expect(JSON.parse(state.stdout)).toEqual(await t.agents.state(running));
    const ended = await cli(['state', stopped, '--json'], { env });
    expect(ended).toMatchObject({ code: 1, stdout: '' });
    expect(ended.stderr).toContain(`Agent "${stopped}" stopped: done here`);
    const table = await cli(['list'], { env });
    expect(table.stdout).toMatch(new RegExp(`^${running}\\s+waiting for input\\s+scripted:echo\\s+\\d{4}-`, 'm'));
    for (const id of [running, parent, child]) await t.agents.stop(id).catch(() => undefined);
  });
});

test('state of an agent whose payloads are encrypted: decoded by the codec the environment configures', async () => {
  const dataConverter = livecontextDataConverter({ encryption: parseKeys(KEYS) });
  const agents = new AgentClient(new Client({ connection: t.connection, dataConverter }), taskQueue);
  await withWorker({ taskQueue, dataConverter, models: [new ScriptedModelProvider({ echo })] }, async () => {
    const id = uniqueId('quick-encrypted');
    await agents.start(id, { model: 'scripted:echo', systemInstruction: 'A secret instruction.' });
    await agents.ask(id, 'hello');
    const expected = await agents.state(id);
    expect(expected.systemInstruction).toBe('A secret instruction.');
    await withReader({ LIVECONTEXT_CODEC_KEYS: KEYS }, async (reader) => expect(await quickly(() => quickState(reader, id))).toEqual(expected));
    // Without the key the quick read cannot decode it, and leaves it to the full client.
    await withReader({ LIVECONTEXT_CODEC_KEYS: undefined }, async (reader) => expect(await quickState(reader, id)).toBeUndefined());
    const state = await cli(['state', id, '--json'], { env: { ...env, LIVECONTEXT_CODEC_KEYS: KEYS } });
    expect(state).toMatchObject({ code: 0, stderr: '' });
    expect(JSON.parse(state.stdout)).toEqual(expected);
    await agents.stop(id);
  });
});
