/**
 * How the CLI reads its words (help only where options are read, text words never options, `--` ends
 * options, `-` reads stdin) and what it says when an agent's run has failed or was terminated: one
 * line, exit 1, no stack trace.
 */
import { ScriptedModelProvider } from '../../activities/index';
import { parseCommandArgs } from '../../cli/argv';
import { echoScript } from '../fixtures/scripts';
import { cli, type CliResult } from '../support/cli';
import { connectTest, type TestContext, uniqueId, withWorker } from '../support/temporal';

let t: TestContext;
const taskQueue = uniqueId('cli-args');
const env = { LIVECONTEXT_TASK_QUEUE: taskQueue };
beforeAll(async () => (t = await connectTest(taskQueue)));
afterAll(async () => t?.close());

const oneLine = (r: CliResult) => {
  expect(r.stderr.trim().split('\n')).toHaveLength(1);
  expect(r.stderr).not.toMatch(/\n\s+at |TypeError/);
};

describe('parseCommandArgs', () => {
  const sendOptions = { wait: { type: 'boolean' }, json: { type: 'boolean' } } as const;
  const send = (...args: string[]) => parseCommandArgs(args, sendOptions, 1);

  test('words of the text are text, even when they look like options', () => {
    expect(send('A', 'what', 'does', '-h', 'mean')).toEqual({ help: false, positionals: ['A', 'what', 'does', '-h', 'mean'], values: {} });
    expect(send('A', 'is', '--help', 'a', 'flag?', '--wait')).toEqual({ help: false, positionals: ['A', 'is', '--help', 'a', 'flag?'], values: { wait: true } });
    expect(send('A', 'use', '--wait', 'to', 'wait')).toMatchObject({ positionals: ['A', 'use', '--wait', 'to', 'wait'], values: {} });
    expect(send('A', 'what', 'is', '-h')).toMatchObject({ help: false, positionals: ['A', 'what', 'is', '-h'] });
  });

  test('options before the text and at its end; help only where options are read', () => {
    expect(send('A', 'hello', 'there', '--wait', '--json')).toEqual({ help: false, positionals: ['A', 'hello', 'there'], values: { wait: true, json: true } });
    expect(send('--wait', 'A', 'hello')).toEqual({ help: false, positionals: ['A', 'hello'], values: { wait: true } });
    expect(send('A', '-', '--wait')).toEqual({ help: false, positionals: ['A', '-'], values: { wait: true } });
    expect(send('-h').help).toBe(true);
    expect(send('A', '--help').help).toBe(true);
    expect(parseCommandArgs(['A', '--json', '-h'], { json: { type: 'boolean' } }).help).toBe(true);
  });

  test('`--` ends options', () => {
    expect(send('A', '--wait', '--', '--json', 'is', 'a', 'flag')).toEqual({ help: false, positionals: ['A', '--json', 'is', 'a', 'flag'], values: { wait: true } });
    expect(send('A', '--', '-h')).toEqual({ help: false, positionals: ['A', '-h'], values: {} });
    expect(parseCommandArgs(['--', '--odd-id'], { json: { type: 'boolean' } })).toEqual({ help: false, positionals: ['--odd-id'], values: {} });
  });

  test('an unknown option before the text is an error', () => {
    expect(() => send('A', '--bogus', 'hi')).toThrow(expect.objectContaining({ code: 'ERR_PARSE_ARGS_UNKNOWN_OPTION' }));
    expect(() => parseCommandArgs(['A', '--nope'], { json: { type: 'boolean' } })).toThrow(/Unknown option '--nope'/);
  });
});

test('send: -h inside the text is sent, `--` ends options, `-` reads stdin; wrong options are one line, exit 2', async () => {
  const id = uniqueId('cli-words');
  await withWorker({ taskQueue, models: [new ScriptedModelProvider({ echo: echoScript })] }, async () => {
    await t.agents.start(id, { model: 'scripted:echo' });
    expect(await cli(['send', id, 'what', 'does', '-h', 'mean', '--wait'], { env })).toMatchObject({ code: 0, stdout: 'echo: what does -h mean\n', stderr: '' });
    expect(await cli(['send', id, '--wait', '--', '--json', 'is', 'a', 'flag'], { env })).toMatchObject({ code: 0, stdout: 'echo: --json is a flag\n' });
    expect(await cli(['send', id, '-', '--wait'], { env, input: 'from stdin\n' })).toMatchObject({ code: 0, stdout: 'echo: from stdin\n' });
    expect(await cli(['send', id, '-', '--wait', '--json'], { env, input: 'two\nlines\n' })).toMatchObject({ code: 0, stdout: expect.stringContaining('"echo: two\\nlines"') });
    expect(await cli(['send', id, '--help'], { env })).toMatchObject({ code: 0, stdout: expect.stringMatching(/^livecontext send <agent-id>/) });

    const badOption = await cli(['send', id, '--bogus', 'hi'], { env });
    expect(badOption).toMatchObject({ code: 2, stderr: `livecontext: Unknown option '--bogus'. Usage: livecontext send <agent-id> [--image FILE]… [--idempotency-key KEY] [--schema FILE] <text… | -> [--wait] [--json]\n` });
    const missingValue = await cli(['start', uniqueId('x'), '--model'], { env });
    expect(missingValue.code).toBe(2);
    oneLine(missingValue);
    const stateOption = await cli(['state', id, '--nope'], { env });
    expect(stateOption.code).toBe(2);
    oneLine(stateOption);

    const inputs = (await t.agents.history(id)).filter((e) => e.kind === 'model_input').map((e) => e.kind === 'model_input' && e.sections[0].content);
    expect(inputs).toEqual(['what does -h mean', '--json is a flag', 'from stdin', 'two\nlines']);
  });
});

test('state on an agent whose run failed or was terminated: one clear line, exit 1', async () => {
  const terminated = uniqueId('cli-terminated');
  const failed = uniqueId('cli-failed');
  await withWorker({ taskQueue, models: [new ScriptedModelProvider({ echo: echoScript })] }, async () => {
    await t.agents.start(terminated, { model: 'scripted:echo' });
    await t.agents.ask(terminated, 'hi');
    await t.agents.handle(terminated).terminate('taken down by the test');
    // A run that fails at once: an agent started around AgentClient, with a model name it refuses.
    const handle = await t.client.workflow.start('agentWorkflow', { workflowId: failed, taskQueue, args: [{ config: { model: 'nonsense' } }] });
    await expect(handle.result()).rejects.toThrow();

    // Its history can still be read (by replaying its run), to recover what it held.
    expect(await cli(['history', terminated], { env })).toMatchObject({ code: 0, stdout: expect.stringContaining('echo: hi') });
    for (const command of ['state', 'send']) {
      const r = await cli([command, terminated, ...(command === 'send' ? ['hello'] : [])], { env });
      expect(r).toMatchObject({ code: 1, stdout: '' });
      expect(r.stderr).toMatch(new RegExp(`^livecontext: Agent "${terminated}" is not running: its run was terminated at \\S+ \\(reason: taken down by the test\\)\\.\\n$`));
    }
    for (const command of ['state', 'history', 'export']) {
      const r = await cli([command, failed, '--json'].slice(0, command === 'export' ? 2 : 3), { env });
      expect(r).toMatchObject({ code: 1, stdout: '' });
      expect(r.stderr).toMatch(new RegExp(`^livecontext: Agent "${failed}" is not running: its run failed at \\S+ \\(Cannot start the agent`));
      oneLine(r);
    }
  });
});
