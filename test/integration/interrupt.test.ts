/**
 * Interrupting a turn (seed 004's "decide to wait for input"): during a slow tool and during a streaming
 * model call, the activity is cancelled (the tool sees its abort signal; the stream is dropped), the
 * agent records what completed and waits for input, and the next turn's request is accepted by both
 * wire fakes (which validate like the real services). Also the CLI command and the ask_user tool.
 */
import { z } from 'zod';
import { defineTool } from '../../activities/index';
import { slowReportTool } from '../fixtures/test-tools';
import { cli } from '../support/cli';
import { useProviderServers } from '../support/provider-servers';
import { eventually, uniqueId, withWorker } from '../support/temporal';
import { maybeRecordHistory } from '../support/record-history';
import { startTestGateway } from '../support/gateway';

const { t, p, taskQueue } = useProviderServers('interrupt', { each: true });
const env = { LIVECONTEXT_TASK_QUEUE: taskQueue };
const OPENAI = 'openai:gpt-4.1-mini';
const ANTHROPIC = 'anthropic:claude-sonnet-4-6';

const seen: string[] = [];
const slowTool = slowReportTool(seen);
const quickTool = defineTool({
  name: 'quick_note',
  description: 'Notes a thing.',
  parameters: z.object({ text: z.string() }),
  execute: ({ text }) => `noted ${text}`,
});

const lastRunState = async (agentId: string) => (await t.agents.state(agentId)).runState;

test.each([OPENAI, ANTHROPIC])('an interrupt during a slow tool (%s): the tool is cancelled, the finished call kept, the next turn valid', async (model) => {
  await withWorker({ taskQueue, models: p.models(), tools: [slowTool, quickTool] }, async () => {
    const agentId = uniqueId('slow-tool');
    const topic = uniqueId('topic');
    const calls = [
      { name: 'quick_note', args: { text: 'first' } },
      { name: 'slow_report', args: { topic } },
    ];
    if (model === OPENAI)
      p.openai.enqueue({ kind: 'stream', text: 'Working on it.', toolCalls: calls.map((c) => ({ name: c.name, arguments: JSON.stringify(c.args) })) });
    else p.anthropic.enqueue({ kind: 'stream', text: 'Working on it.', toolCalls: calls.map((c) => ({ name: c.name, input: c.args })) });
    await t.agents.start(agentId, { model });
    const { inputSeq } = await t.agents.send(agentId, 'make the report');
    await eventually(() => seen.includes(`started ${topic}`), 60_000, 'the slow tool to start');

    const cut = await cli(['interrupt', agentId], { env });
    expect(cut).toMatchObject({ code: 0, stdout: expect.stringMatching(/^Interrupted the turn of agent/) });
    await eventually(() => seen.includes(`cancelled ${topic}`), 30_000, 'the tool to see its cancellation');
    await expect(t.agents.waitForAnswer(agentId, inputSeq)).resolves.toMatchObject({ status: 'interrupted' });
    expect(await lastRunState(agentId)).toBe('WaitingInput');
    const history = await t.agents.history(agentId);
    expect(history.at(-2)).toMatchObject({
      kind: 'tool_results',
      results: [
        { toolName: 'quick_note', status: 'Success', result: 'noted first' },
        { toolName: 'slow_report', status: 'Skipped' },
      ],
    });
    expect(history.at(-1)).toMatchObject({ kind: 'turn_end', reason: 'interrupted' });

    // The next turn: the request (history ending in tool results, then an input) is accepted as valid.
    const before = model === OPENAI ? p.openai.requests.length : p.anthropic.requests.length;
    if (model === OPENAI) p.openai.enqueue({ kind: 'stream', text: 'Fine, a short one then.' });
    else p.anthropic.enqueue({ kind: 'stream', text: 'Fine, a short one then.' });
    await expect(t.agents.ask(agentId, 'skip the report; just say hi')).resolves.toMatchObject({
      status: 'answered',
      answer: { contents: ['Fine, a short one then.'] },
    });
    expect((model === OPENAI ? p.openai.requests.length : p.anthropic.requests.length) - before).toBe(1); // accepted at once: no 400
    await expect(t.agents.interrupt(agentId)).resolves.toMatchObject({ interrupted: false }); // nothing runs now
    if (model === ANTHROPIC) await maybeRecordHistory(t.agents.handle(agentId), 'interrupt_v1.json');
  });
});

test.each([OPENAI, ANTHROPIC])(
  'an interrupt during a streaming model call (%s): the call is cancelled, the agent waits, the next turn valid',
  async (model) => {
    await withWorker({ taskQueue, models: p.models() }, async () => {
      const agentId = uniqueId('slow-model');
      const long = 'word '.repeat(400);
      if (model === OPENAI) p.openai.enqueue({ kind: 'stream', text: long, chunkDelayMs: 50 });
      else p.anthropic.enqueue({ kind: 'stream', text: long, chunkDelayMs: 50 });
      await t.agents.start(agentId, { model });
      const { inputSeq } = await t.agents.send(agentId, 'tell me a long story');
      await eventually(async () => ((await t.agents.partialOutput(agentId))?.text.length ?? 0) > 20, 60_000, 'text to stream');

      await expect(t.agents.interrupt(agentId, 'ana')).resolves.toMatchObject({ interrupted: true });
      await expect(t.agents.waitForAnswer(agentId, inputSeq)).resolves.toEqual({ inputSeq, status: 'interrupted', by: 'ana' });
      await eventually(async () => (await t.agents.partialOutput(agentId)) === null, 30_000, 'the model call to be gone');
      const history = await t.agents.history(agentId);
      expect(history.map((e) => e.kind)).toEqual(['model_input', 'turn_end']);

      if (model === OPENAI) p.openai.enqueue({ kind: 'stream', text: 'A short one.' });
      else p.anthropic.enqueue({ kind: 'stream', text: 'A short one.' });
      await expect(t.agents.ask(agentId, 'a short story instead')).resolves.toMatchObject({ status: 'answered', answer: { contents: ['A short one.'] } });
    });
  },
);

test("an interrupt aimed at one input's turn: refused while that input is queued or its turn is over, so it never cuts another turn", async () => {
  await withWorker({ taskQueue, models: p.models(), tools: [slowTool] }, async () => {
    const agentId = uniqueId('interrupt-seq');
    const [one, two] = [uniqueId('topic'), uniqueId('topic')];
    const slowCall = (topic: string) => ({ kind: 'stream' as const, toolCalls: [{ name: 'slow_report', arguments: JSON.stringify({ topic }) }] });
    p.openai.enqueue(slowCall(one), slowCall(two));
    await t.agents.start(agentId, { model: OPENAI });
    const first = await t.agents.send(agentId, 'report one');
    const second = await t.agents.send(agentId, 'report two');
    await eventually(() => seen.includes(`started ${one}`), 60_000, 'the first slow tool to start');

    const refusal = (message: RegExp) => ({ cause: { type: 'NOT_RUNNING', message: expect.stringMatching(message) } });
    await expect(t.agents.interrupt(agentId, 'cancel of task two', { inputSeq: second.inputSeq })).rejects.toMatchObject(
      refusal(new RegExp(`Input #${second.inputSeq} is not running: it is still queued behind input #${first.inputSeq}`)),
    );
    await expect(t.agents.interrupt(agentId, 'cancel of task one', { inputSeq: first.inputSeq })).resolves.toMatchObject({ interrupted: true });
    await expect(t.agents.waitForAnswer(agentId, first.inputSeq)).resolves.toMatchObject({ status: 'interrupted', by: 'cancel of task one' });

    // Input two's turn runs now: a late second cancel of task one leaves it alone.
    await eventually(() => seen.includes(`started ${two}`), 60_000, 'the second slow tool to start');
    await expect(t.agents.interrupt(agentId, 'late cancel of task one', { inputSeq: first.inputSeq })).rejects.toMatchObject(
      refusal(new RegExp(`Input #${first.inputSeq}'s turn is over \\(interrupted\\)`)),
    );
    expect((await t.agents.state(agentId)).runState).not.toBe('WaitingInput');
    await expect(t.agents.interrupt(agentId, 'cancel of task two', { inputSeq: second.inputSeq })).resolves.toMatchObject({ interrupted: true });
    await expect(t.agents.waitForAnswer(agentId, second.inputSeq)).resolves.toMatchObject({ status: 'interrupted', by: 'cancel of task two' });
    const ends = (await t.agents.history(agentId)).filter((e) => e.kind === 'turn_end');
    expect(ends.map((e) => (e.kind === 'turn_end' ? e.by : undefined))).toEqual(['cancel of task one', 'cancel of task two']);
  });
});

test('ask_user ends the turn with a question; the reply continues the conversation', async () => {
  await withWorker({ taskQueue, models: p.models() }, async () => {
    const agentId = uniqueId('asker');
    p.openai.enqueue({ kind: 'stream', toolCalls: [{ name: 'ask_user', arguments: JSON.stringify({ question: 'Which city?' }) }] });
    await t.agents.start(agentId, { model: OPENAI });
    await expect(t.agents.ask(agentId, 'book me a train')).resolves.toMatchObject({ status: 'asked', question: 'Which city?' });
    expect(p.openai.requests.at(-1)!.body.tools?.map((tool: { function: { name: string } }) => tool.function.name)).toContain('ask_user');
    p.openai.enqueue({ kind: 'stream', text: 'Booked for Lyon.' });
    await expect(t.agents.ask(agentId, 'Lyon')).resolves.toMatchObject({ status: 'answered', answer: { contents: ['Booked for Lyon.'] } });
    p.openai.enqueue({ kind: 'stream', toolCalls: [{ name: 'ask_user', arguments: JSON.stringify({ question: 'Return too?' }) }] });
    const sent = await cli(['send', agentId, 'and back', '--wait'], { env });
    expect(sent).toMatchObject({ code: 3, stdout: 'Return too?\n' }); // the agent needs the person: exit status 3
  });
});

test('two ask_user calls in one reply: every question reaches the person (client, CLI, REST), one reply answers both', async () => {
  await withWorker({ taskQueue, models: p.models() }, async () => {
    const agentId = uniqueId('asker-two');
    const questions = (a: string, b: string) => ({
      kind: 'stream' as const,
      toolCalls: [a, b].map((question) => ({ name: 'ask_user', arguments: JSON.stringify({ question }) })),
    });
    p.openai.enqueue(questions('Which city?', 'Which day?'));
    await t.agents.start(agentId, { model: OPENAI });
    const both = '1. Which city?\n2. Which day?';
    await expect(t.agents.ask(agentId, 'book me a train')).resolves.toMatchObject({ status: 'asked', question: both });
    const gateway = await startTestGateway(t.agents);
    try {
      await expect(gateway.request('GET', `/agents/${agentId}/answers/1`)).resolves.toMatchObject({ status: 200, body: { status: 'asked', question: both } });
    } finally {
      await gateway.close();
    }
    p.openai.enqueue({ kind: 'stream', text: 'Booked for Lyon on Tuesday.' });
    await expect(t.agents.ask(agentId, '1. Lyon 2. Tuesday')).resolves.toMatchObject({
      status: 'answered',
      answer: { contents: ['Booked for Lyon on Tuesday.'] },
    });
    // The reply reached the model after both calls' results, as the next input.
    const sent = p.openai.requests.at(-1)!.body.messages as Array<{ role: string; content: unknown; tool_call_id?: string }>;
    expect(sent.filter((m) => m.role === 'tool')).toHaveLength(2);
    expect(JSON.stringify(sent.at(-1))).toContain('1. Lyon 2. Tuesday');
    p.openai.enqueue(questions('Return too?', 'First class?'));
    const shown = await cli(['send', agentId, 'and back', '--wait'], { env });
    expect(shown).toMatchObject({ code: 3, stdout: '1. Return too?\n2. First class?\n' }); // the agent needs the person: exit status 3
    await maybeRecordHistory(t.agents.handle(agentId), 'ask-user-all-questions_v1.json');
  });
});
