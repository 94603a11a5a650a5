/**
 * `send --wait` when the turn needs a person: a tool call waiting for approval (the offline demo's
 * "delete note N") or a question from the agent. It says at once on stderr what it waits for and the
 * exact command that answers it, and ends with exit status 3 instead of waiting for ever; --timeout
 * bounds any wait (exit status 124). The commands it prints work as printed.
 */
import { mkdtempSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { ScriptedModelProvider } from '../../activities/index';
import { unwrap } from '../../agent/index';
import { cli } from '../support/cli';
import { uniqueId, withWorker } from '../support/temporal';
import { useTestConnection } from '../support/test-connection';

const { t, taskQueue } = useTestConnection('cli-person');
const env = { LIVECONTEXT_TASK_QUEUE: taskQueue };
const workspaceRoot = mkdtempSync(path.join(tmpdir(), 'lc-person-ws-'));

/** Asks the person which city on the first turn; answers after. */
const asker = new ScriptedModelProvider({
  asks: (req) => {
    const last = unwrap(req.messages[req.messages.length - 1]);
    const input = last.kind === 'model_input' ? last.sections[0].content : '';
    return input === 'book me a train' ? { toolCalls: [{ name: 'ask_user', args: { question: 'Which city?' } }] } : { text: `Booked for ${input}.` };
  },
});

/** The `livecontext …` command printed after `label:` on stderr, as its words (the ids here need no quotes). */
const printed = (stderr: string, label: string) => {
  const line = stderr.split('\n').find((l) => new RegExp(`^livecontext: +${label}: `).test(l));
  if (!line) throw new Error(`no "${label}:" line in:\n${stderr}`);
  return line.replace(new RegExp(`^livecontext: +${label}: +`), '').split(/\s+/);
};

test('a tool call waiting for approval: said at once with the commands that answer it, exit status 3', async () => {
  const agentId = uniqueId('demo-approval');
  await withWorker({ taskQueue, workspaceRoot }, async () => {
    await t.agents.start(agentId, { model: 'demo:offline' });
    expect(await cli(['send', agentId, 'buy milk', '--wait'], { env })).toMatchObject({ code: 0, stdout: expect.stringContaining('note-1.md') });

    const waiting = await cli(['send', agentId, 'delete note 1', '--wait'], { env });
    expect(waiting).toMatchObject({ code: 3, stdout: '' });
    const { toolCallId } = (await t.agents.state(agentId)).awaitingApproval[0];
    expect(waiting.stderr).toContain(
      `livecontext: Agent "${agentId}" waits for a person: tool call delete_file {"path":"notes/note-1.md"} needs approval (deleting notes/note-1.md cannot be undone).`,
    );
    expect(printed(waiting.stderr, 'approve')).toEqual(['livecontext', 'approve', agentId, toolCallId]);
    expect(printed(waiting.stderr, 'deny')).toEqual(['livecontext', 'deny', '--reason', '"…"', agentId, toolCallId]);
    expect(waiting.stderr).toContain(`The answer to input #2 comes after that: \`livecontext history ${agentId}\` shows it`);

    // Input queued behind the waiting call: the same, as JSON for a program.
    const queued = await cli(['send', agentId, 'hello', '--wait', '--json'], { env });
    expect(queued.code).toBe(3);
    expect(JSON.parse(queued.stdout)).toEqual({
      status: 'needs_approval',
      inputSeq: 3,
      waitingFor: [
        { agentId, toolCallId, toolName: 'delete_file', arguments: '{"path":"notes/note-1.md"}', reason: 'deleting notes/note-1.md cannot be undone' },
      ],
    });

    // The printed command answers it; then the turn and the one queued behind it finish.
    const [, ...approve] = printed(waiting.stderr, 'approve');
    expect(await cli(approve, { env })).toMatchObject({ code: 0, stdout: `Approved ${toolCallId}.\n` });
    const outcomes = await Promise.all([t.agents.waitForAnswer(agentId, 2), t.agents.waitForAnswer(agentId, 3)]);
    expect(outcomes.map((o) => o.status)).toEqual(['answered', 'answered']);
  });
});

test('--timeout ends a wait that outlasts it with exit status 124; the agent keeps the input', async () => {
  const agentId = uniqueId('demo-timeout');
  await withWorker({ taskQueue, workspaceRoot }, async () => {
    await t.agents.start(agentId, { model: 'demo:offline' });
    const slow = await cli(['send', agentId, 'sleep 600', '--wait', '--timeout', '1'], { env });
    expect(slow).toMatchObject({ code: 124, stdout: '' });
    expect(slow.stderr).toContain(
      `livecontext: No answer within 1 s; the agent keeps the input, and \`livecontext history ${agentId}\` shows the answer later.`,
    );
    expect((await t.agents.state(agentId)).consumedInputSeq).toBe(1);
    await t.agents.interrupt(agentId, 'test');

    expect(await cli(['send', agentId, 'hi', '--timeout', '5'], { env })).toMatchObject({
      code: 2,
      stderr: expect.stringContaining('--timeout bounds the wait for the answer: give --wait with it.'),
    });
    expect(await cli(['send', agentId, 'hi', '--wait', '--timeout', 'soon'], { env })).toMatchObject({
      code: 2,
      stderr: expect.stringContaining('--timeout takes a number of seconds, not "soon".'),
    });
  });
});

test('a question from the agent: printed, with how to reply, exit status 3', async () => {
  const agentId = uniqueId('asker');
  await withWorker({ taskQueue, models: [asker], workspaceRoot }, async () => {
    await t.agents.start(agentId, { model: 'scripted:asks' });
    const asked = await cli(['send', agentId, 'book me a train', '--wait'], { env });
    expect(asked).toMatchObject({
      code: 3,
      stdout: 'Which city?\n',
      stderr: `livecontext: Agent "${agentId}" asks you the question above: reply with livecontext send ${agentId} "…"\n`,
    });
    expect(await cli(['send', agentId, 'Lyon', '--wait'], { env })).toMatchObject({ code: 0, stdout: 'Booked for Lyon.\n' });
  });
});
