/**
 * `livecontext fork` and `livecontext compare` as a user runs them: a fork at a turn's end, its lineage in
 * `state` (and the source's forks there), a refused point in one line with nothing created, and compare's
 * columns.
 */
import { ScriptedModelProvider } from '../../activities/index';
import { echoScript } from '../fixtures/scripts';
import { cli } from '../support/cli';
import { connectTest, eventually, type TestContext, uniqueId, withWorker } from '../support/temporal';

let t: TestContext;
const taskQueue = uniqueId('fork-cli');
beforeAll(async () => {
  t = await connectTest(taskQueue);
});
afterAll(async () => {
  await t?.close();
});

test('fork, state and compare on the command line', async () => {
  const id = uniqueId('cli-src');
  await withWorker({ taskQueue, models: [new ScriptedModelProvider({ echo: echoScript })] }, async () => {
    await t.agents.start(id, { model: 'scripted:echo' });
    await t.agents.ask(id, 'first');
    await t.agents.ask(id, 'second');
    const history = await t.agents.history(id);
    const end = history.find((e) => e.kind === 'model_output')!.seq;
    const input = history.filter((e) => e.kind === 'model_input')[1].seq;

    const forked = await cli(['fork', id, '--at', String(end), '--as', `${id}-b`]);
    expect(forked).toMatchObject({ code: 0, stdout: expect.stringContaining(`Forked "${id}" at #${end} as "${id}-b": it waits for input.`) });
    expect(forked.stderr).toContain('A fork starts with an empty workspace');
    expect((await cli(['state', `${id}-b`])).stdout).toContain(`forked from ${id} at #${end}`);
    await eventually(async () => (await cli(['state', id])).stdout.includes(`↳ fork ${id}-b at #${end}`), 30_000, 'the fork in the source state');

    const refused = await cli(['fork', id, '--at', '9999', '--as', `${id}-c`]);
    expect(refused.code).toBe(2); // a UserError, as for import's taken id
    expect(refused.stderr.trim().split('\n')).toHaveLength(1);
    expect(refused.stderr).toMatch(/#9999 is not an entry of the agent \(its history holds #1–#\d+\)/);
    await expect(t.agents.handle(`${id}-c`).describe()).rejects.toThrow();

    const compared = await cli(['compare', id, '--at', String(input), '--models', 'scripted:echo,demo:offline']);
    expect(compared.code).toBe(0);
    const first = compared.stdout.split('\n')[0];
    expect(first).toMatch(/^scripted:echo\s+│ demo:offline$/);
    expect(compared.stdout).toMatch(/duration \d+\.\d s/);
    expect((await t.agents.state(`${id}.${input}.demo-offline`)).config.forkedFrom).toMatchObject({ agentId: id, seq: input });
    // The same point again collides with the forks that remain, unless named otherwise.
    const again = await cli(['compare', id, '--at', String(input), '--models', 'demo:offline']);
    expect(again.code).toBe(2);
    expect(again.stderr).toContain(`Agent "${id}.${input}.demo-offline" already exists`);
    const named = await cli(['compare', id, '--at', String(input), '--models', 'demo:offline', '--prefix', `${id}-try2`, '--json']);
    expect(named.code).toBe(0);
    expect(JSON.parse(named.stdout)).toEqual([expect.objectContaining({ agentId: `${id}-try2.demo-offline`, model: 'demo:offline', status: 'answered' })]);
  });
});
