/**
 * The CLI driven as a user would (child processes against the real dev server): start → send --wait →
 * history --json; piped chat with /history and /quit; list; and every error a user will meet, as one
 * clear line and a non-zero exit code.
 */
import { ScriptedModelProvider } from '../../activities/index';
import { INPUT_MAX_BYTES } from '../../agent/index';
import { echoScript } from '../fixtures/scripts';
import { cli } from '../support/cli';
import { uniqueId, withWorker } from '../support/temporal';
import { useTestConnection } from '../support/test-connection';

const { t, taskQueue } = useTestConnection('cli');
const env = { LIVECONTEXT_TASK_QUEUE: taskQueue };
const models = () => [new ScriptedModelProvider({ echo: echoScript })];

test('start → send --wait → history --json → state → list → stop', async () => {
  const id = uniqueId('cli-agent');
  await withWorker({ taskQueue, models: models() }, async () => {
    const started = await cli(['start', id, '--model', 'scripted:echo', '--system', 'Echo things.'], { env });
    expect(started).toMatchObject({ code: 0, stdout: `Started agent "${id}" with model scripted:echo.\n` });

    const sent = await cli(['send', id, 'hello', 'there', '--wait'], { env });
    expect(sent).toMatchObject({ code: 0, stdout: 'echo: hello there\n' });

    const history = await cli(['history', id, '--json'], { env });
    expect(history.code).toBe(0);
    const entries = JSON.parse(history.stdout);
    expect(entries.map((e: { kind: string }) => e.kind)).toEqual(['system_instruction', 'model_input', 'model_output']);
    expect(entries[2].contents).toEqual(['echo: hello there']);

    const state = await cli(['state', id, '--json'], { env });
    expect(JSON.parse(state.stdout)).toMatchObject({ runState: 'WaitingInput', systemInstruction: 'Echo things.' });
    expect((await cli(['state', id], { env })).stdout).toMatch(/^agent .*: waiting for input\nmodel scripted:echo/);

    const list = await cli(['list', '--json'], { env });
    const mine = JSON.parse(list.stdout).find((a: { agentId: string }) => a.agentId === id);
    expect(mine).toMatchObject({ status: 'RUNNING', model: 'scripted:echo', provider: 'scripted' });
    expect(['WaitingInput', 'Working']).toContain(mine.runState); // visibility is eventually consistent

    const configured = await cli(['configure', id, '--system', 'Be loud.'], { env });
    expect(configured.code).toBe(0);
    // Model calls as local activities from the next call: the next turn schedules no callModel activity.
    expect(await cli(['configure', id, '--model-calls', 'nearby'], { env })).toMatchObject({
      code: 2,
      stderr: expect.stringContaining('--model-calls must be activity or local, not "nearby"'),
    });
    const local = await cli(['configure', id, '--model-calls', 'local'], { env });
    expect(local).toMatchObject({ code: 0, stdout: expect.stringContaining('(local model calls)') });
    expect(await cli(['send', id, 'nearby', '--wait'], { env })).toMatchObject({ code: 0, stdout: 'echo: nearby\n' });
    const events = (await t.client.workflow.getHandle(id).fetchHistory()).events ?? [];
    const modelActivities = events.filter((e) => e.activityTaskScheduledEventAttributes?.activityType?.name === 'callModel');
    expect(modelActivities).toHaveLength(1); // the first turn's, before the change
    expect((await cli(['stop', id], { env })).code).toBe(0);
  });
});

test('chat with piped input: one reply per line, /history, /notebook, /quit detaches', async () => {
  const id = uniqueId('cli-chat');
  await withWorker({ taskQueue, models: models() }, async () => {
    await t.agents.start(id, { model: 'scripted:echo' });
    const chat = await cli(['chat', id], { env, input: 'first\nsecond\n/history\n/notebook\n/quit\nnever sent\n' });
    expect(chat.code).toBe(0);
    const lines = chat.stdout.trim().split('\n');
    expect(lines.slice(0, 2)).toEqual(['echo: first', 'echo: second']);
    expect(lines).toContain('#1 you: first');
    expect(lines).toContain('#4 agent (scripted:echo): echo: second');
    expect(lines).toContain('(the notebook is empty)');
    expect(lines[lines.length - 1]).toBe(`Detached. The agent "${id}" keeps running in Temporal.`);
    expect((await t.agents.history(id)).filter((e) => e.kind === 'model_input')).toHaveLength(2); // "never sent" was not
    expect((await t.agents.state(id)).runState).toBe('WaitingInput');
  });
});

test('errors a user will meet: one line, no stack trace, non-zero exit', async () => {
  const id = uniqueId('cli-err');
  const oneLine = (r: { stderr: string }) => {
    expect(r.stderr.trim().split('\n')).toHaveLength(1);
    expect(r.stderr).not.toMatch(/\n\s+at /);
  };
  await withWorker({ taskQueue, models: models() }, async () => {
    const unknown = await cli(['state', 'no-such-agent-xyz'], { env });
    expect(unknown.code).not.toBe(0);
    expect(unknown.stderr).toMatch(/^livecontext: No agent "no-such-agent-xyz"/);
    oneLine(unknown);

    const unreachable = await cli(['state', id], { env: { ...env, TEMPORAL_ADDRESS: '127.0.0.1:1' } });
    expect(unreachable.code).not.toBe(0);
    expect(unreachable.stderr).toMatch(/Cannot reach a Temporal server at 127\.0\.0\.1:1.*livecontext dev/);
    oneLine(unreachable);
    // The worker says the same after its progress line, not the transport's error alone.
    const noServer = await cli(['worker'], { env: { ...env, TEMPORAL_ADDRESS: '127.0.0.1:1' } });
    expect(noServer.code).toBe(2);
    expect(noServer.stderr.trim().split('\n').at(-1)).toMatch(/^livecontext: Cannot reach a Temporal server at 127\.0\.0\.1:1 .*livecontext dev/);

    const badModel = await cli(['start', id, '--model', 'gpt4'], { env });
    expect(badModel.code).toBe(2);
    expect(badModel.stderr).toMatch(/Invalid model name "gpt4": name it provider:model/);
    oneLine(badModel);

    expect((await cli(['start', id, '--model', 'scripted:echo'], { env })).code).toBe(0);
    const exists = await cli(['start', id, '--model', 'scripted:echo'], { env });
    expect(exists.code).toBe(2);
    expect(exists.stderr).toBe(`livecontext: Agent "${id}" already exists.\n`);

    const big = await cli(['send', id, '-'], { env, input: 'x'.repeat(INPUT_MAX_BYTES + 10) });
    expect(big.code).not.toBe(0);
    expect(big.stderr).toMatch(/Input is \d+ bytes; the limit is 262144 bytes/);
    oneLine(big);

    const usage = await cli(['send'], { env });
    expect(usage).toMatchObject({ code: 2, stderr: 'livecontext: Missing <agent-id>.\n' });
    const badFlag = await cli(['state', id, '--nope'], { env });
    expect(badFlag.code).toBe(2);
    oneLine(badFlag);
    const help = await cli(['export', '--help'], { env });
    expect(help).toMatchObject({ code: 0, stdout: expect.stringMatching(/^livecontext export <agent-id> \[--out FILE\]/) });
  });
});

test('/reset starts the agent over with an empty history, keeping its configuration', async () => {
  const id = uniqueId('cli-reset');
  await withWorker({ taskQueue, models: models() }, async () => {
    await t.agents.start(id, { model: 'scripted:echo', systemInstruction: 'Keep me.' });
    const chat = await cli(['chat', id], { env, input: 'before\n/reset\nafter\n/quit\n' });
    expect(chat.code).toBe(0);
    expect(chat.stdout).toContain('The agent starts over with an empty history.');
    expect(chat.stdout).toContain('echo: after');
    const history = await t.agents.history(id);
    expect(history.map((e) => (e.kind === 'model_input' ? `in:${e.sections[0].content}` : e.kind))).toEqual(['system_instruction', 'in:after', 'model_output']);
    expect((await t.agents.state(id)).systemInstruction).toBe('Keep me.');
  });
});

test('list has a header row; with --all, runs an agent continued from are marked as such', async () => {
  const id = uniqueId('listed');
  await withWorker({ taskQueue, models: models() }, async () => {
    await t.agents.start(id, { model: 'scripted:echo' });
    await t.agents.ask(id, 'one');
    await t.agents.reset(id); // a reset continues the agent as new
    await t.agents.ask(id, 'two');
    const all = await cli(['list', '--all'], { env });
    expect(all.code).toBe(0);
    const lines = all.stdout.trim().split('\n');
    expect(lines[0]).toMatch(/^AGENT\s+STATE\s+MODEL\s+STARTED$/);
    const mine = lines.filter((l) => l.startsWith(`${id} `));
    expect(mine.some((l) => /continued in a new run\s+scripted:echo/.test(l))).toBe(true);
    expect(mine.some((l) => /(waiting for input|working|running)\s+scripted:echo/.test(l))).toBe(true);
  });
});
