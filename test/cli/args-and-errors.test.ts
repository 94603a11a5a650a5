/**
 * How the CLI reads its words as a user meets them (options anywhere, an option among the words of the
 * text refused with a hint and nothing sent, `--` ends options, `-` reads stdin; the rules themselves
 * in test/unit/cli-argv.test.ts) and what it says when an agent's run has failed or was terminated: one
 * line, exit 1, no stack trace.
 */
import { ScriptedModelProvider } from '../../activities/index';
import { echoScript } from '../fixtures/scripts';
import { cli, type CliResult } from '../support/cli';
import { uniqueId, withWorker } from '../support/temporal';
import { useTestConnection } from '../support/test-connection';

const { t, taskQueue } = useTestConnection('cli-args');
const env = { LIVECONTEXT_TASK_QUEUE: taskQueue };

const oneLine = (r: CliResult) => {
  expect(r.stderr.trim().split('\n')).toHaveLength(1);
  expect(r.stderr).not.toMatch(/\n\s+at |TypeError/);
};

test('send: an option among the words of the text is refused and nothing sent, `--` ends options, `-` reads stdin; wrong options are one line, exit 2', async () => {
  const id = uniqueId('cli-words');
  const usage = 'Usage: livecontext send <agent-id> [--image FILE]… [--idempotency-key KEY] [--schema FILE] <text… | -> [--wait] [--timeout SECONDS] [--json]';
  await withWorker({ taskQueue, models: [new ScriptedModelProvider({ echo: echoScript })] }, async () => {
    await t.agents.start(id, { model: 'scripted:echo' });
    const inText = await cli(['send', id, 'what', 'does', '-h', 'mean', '--wait'], { env });
    expect(inText).toMatchObject({
      code: 2,
      stdout: '',
      stderr: `livecontext: "-h" is among the words of the text: put options before or after the text, and put -- before text that has words starting with -. ${usage}\n`,
    });
    const waitInText = await cli(['send', id, 'explain', 'what', '--wait', 'does'], { env });
    expect(waitInText).toMatchObject({ code: 2, stderr: expect.stringContaining('"--wait" is among the words of the text') });
    expect(await cli(['send', id, '--wait', '--', 'what', 'does', '-h', 'mean'], { env })).toMatchObject({
      code: 0,
      stdout: 'echo: what does -h mean\n',
      stderr: '',
    });
    expect(await cli(['send', id, '--wait', '--', '--json', 'is', 'a', 'flag'], { env })).toMatchObject({ code: 0, stdout: 'echo: --json is a flag\n' });
    expect(await cli(['send', id, 'options', 'after', 'the', 'text', '--json', '--wait'], { env })).toMatchObject({
      code: 0,
      stdout: expect.stringContaining('"echo: options after the text"'),
    });
    expect(await cli(['send', id, '-', '--wait'], { env, input: 'from stdin\n' })).toMatchObject({ code: 0, stdout: 'echo: from stdin\n' });
    expect(await cli(['send', id, '-', '--wait', '--json'], { env, input: 'two\nlines\n' })).toMatchObject({
      code: 0,
      stdout: expect.stringContaining('"echo: two\\nlines"'),
    });
    expect(await cli(['send', id, '--help'], { env })).toMatchObject({ code: 0, stdout: expect.stringMatching(/^livecontext send <agent-id>/) });

    const badOption = await cli(['send', id, '--bogus', 'hi'], { env });
    expect(badOption).toMatchObject({
      code: 2,
      stderr: `livecontext: Unknown option '--bogus' (put -- before text that has words starting with -). ${usage}\n`,
    });
    const missingValue = await cli(['start', uniqueId('x'), '--model'], { env });
    expect(missingValue.code).toBe(2);
    oneLine(missingValue);
    const stateOption = await cli(['state', id, '--nope'], { env });
    expect(stateOption.code).toBe(2);
    oneLine(stateOption);
    const extraWord = await cli(['deny', id, 'call_1', '--reason', 'not', 'now'], { env });
    expect(extraWord).toMatchObject({
      code: 2,
      stderr: expect.stringMatching(/^livecontext: Unexpected word "now" \(quote a value that has spaces\)\. Usage: livecontext deny/),
    });

    const inputs = (await t.agents.history(id)).filter((e) => e.kind === 'model_input').map((e) => e.kind === 'model_input' && e.sections[0].content);
    expect(inputs).toEqual(['what does -h mean', '--json is a flag', 'options after the text', 'from stdin', 'two\nlines']);
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
      expect(r.stderr).toMatch(
        new RegExp(`^livecontext: Agent "${terminated}" is not running: its run was terminated at \\S+ \\(reason: taken down by the test\\)\\.\\n$`),
      );
    }
    for (const command of ['state', 'history', 'export']) {
      const r = await cli([command, failed, '--json'].slice(0, command === 'export' ? 2 : 3), { env });
      expect(r).toMatchObject({ code: 1, stdout: '' });
      expect(r.stderr).toMatch(new RegExp(`^livecontext: Agent "${failed}" is not running: its run failed at \\S+ \\(Cannot start the agent`));
      oneLine(r);
    }
  });
});
