/**
 * Typed answers on the real dev server through both wire fakes (which validate requests like the real
 * services): the schema reaches OpenAI as `response_format` and Anthropic as a forced answer tool; a
 * tool call may come before the answer; an answer that does not match is re-asked once, and a second
 * miss blocks the agent on ModelError.InvalidStructuredOutput until a retry; the CLI's `send --schema`,
 * and the gateway's POST /agents/:id/input with a `responseSchema` in its body.
 */
import { mkdtempSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { z } from 'zod';
import { defineTool } from '../../activities/index';
import { TypedAnswerError } from '../../client/typed-answer';
import { cli } from '../support/cli';
import { startTestGateway } from '../support/gateway';
import { useProviderServers } from '../support/provider-servers';
import { uniqueId, withWorker } from '../support/temporal';

const { t, p, taskQueue } = useProviderServers('typed', { each: true });
const OPENAI = 'openai:gpt-4.1-mini';
const ANTHROPIC = 'anthropic:claude-sonnet-4-6';

const Verdict = z.object({ verdict: z.enum(['approve', 'reject']), score: z.number().int().min(0).max(10), reasons: z.array(z.string()).max(3) });
const good = { verdict: 'approve', score: 7, reasons: ['tests pass'] };
const lookupTool = defineTool({
  name: 'lookup_pr',
  description: 'Reads a pull request.',
  parameters: z.object({ id: z.number() }),
  execute: ({ id }) => `PR ${id}: adds tests`,
});

const worker = <T>(fn: () => Promise<T>) => withWorker({ taskQueue, models: p.models(), tools: [lookupTool] }, fn);
// eslint-disable-next-line @typescript-eslint/no-explicit-any
const lastBody = (fake: { requests: Array<{ body: any }> }) => fake.requests[fake.requests.length - 1].body;

test('OpenAI: the schema goes as response_format json_schema, tools stay offered; the value comes back parsed', async () => {
  await worker(async () => {
    const agentId = uniqueId('typed-openai');
    await t.agents.start(agentId, { model: OPENAI });
    p.openai.enqueue({ kind: 'stream', text: JSON.stringify(good, null, 2) });
    const outcome = await t.agents.ask(agentId, 'Review PR 12.', { schema: Verdict, name: 'verdict' });
    expect(outcome.value).toEqual(good);
    expect(outcome.answer.contents).toEqual([JSON.stringify(good)]); // recorded compact
    const body = lastBody(p.openai);
    expect(body.response_format).toEqual({
      type: 'json_schema',
      json_schema: { name: 'verdict', schema: expect.objectContaining({ type: 'object', required: ['verdict', 'score', 'reasons'] }), strict: false },
    });
    expect(body.response_format.json_schema.schema).not.toHaveProperty('$schema');
    expect(body.tools.map((x: { function: { name: string } }) => x.function.name)).toContain('lookup_pr');
    // The schema is in history once, on the input; the next turn, without one, is free text again.
    const history = await t.agents.history(agentId);
    expect(history.find((e) => e.kind === 'model_input')).toMatchObject({ responseSchema: { name: 'verdict', schema: { type: 'object' } } });
    p.openai.enqueue({ kind: 'stream', text: 'Thanks!' });
    expect(await t.agents.ask(agentId, 'Anything else?')).toMatchObject({ status: 'answered', answer: { contents: ['Thanks!'] } });
    expect(lastBody(p.openai)).not.toHaveProperty('response_format');
  });
});

test('Anthropic: the schema is a forced answer tool; its call is the answer, never a tool call in history', async () => {
  await worker(async () => {
    const agentId = uniqueId('typed-anthropic');
    await t.agents.start(agentId, { model: ANTHROPIC });
    p.anthropic.enqueue({ kind: 'stream', toolCalls: [{ name: 'final_answer', input: good }] });
    const outcome = await t.agents.ask(agentId, 'Review PR 12.', { schema: Verdict });
    expect(outcome.value).toEqual(good);
    expect(outcome.answer).toMatchObject({ contents: [JSON.stringify(good)], toolCalls: [] });
    const body = lastBody(p.anthropic);
    expect(body.tool_choice).toEqual({ type: 'any' });
    const answerTool = body.tools.find((x: { name: string }) => x.name === 'final_answer');
    expect(answerTool).toMatchObject({ input_schema: { type: 'object', properties: { verdict: { enum: ['approve', 'reject'] } } } });
    expect(body.tools.map((x: { name: string }) => x.name)).toContain('lookup_pr');
    // The next turn's request is valid (the fake checks it like the real API) and offers no answer tool.
    p.anthropic.enqueue({ kind: 'stream', text: 'Thanks!' });
    expect(await t.agents.ask(agentId, 'Anything else?')).toMatchObject({ status: 'answered', answer: { contents: ['Thanks!'] } });
    const next = lastBody(p.anthropic);
    expect(next.tools.map((x: { name: string }) => x.name)).not.toContain('final_answer');
    expect(next).not.toHaveProperty('tool_choice');
    expect(next.messages[1]).toMatchObject({ role: 'assistant', content: [{ type: 'text', text: JSON.stringify(good) }] });
  });
});

test('Anthropic with extended thinking: the answer tool is offered with tool_choice auto (forcing is refused with thinking); a text answer is read leniently', async () => {
  await worker(async () => {
    const agentId = uniqueId('typed-thinking');
    await t.agents.start(agentId, { model: ANTHROPIC, params: { maxTokens: 4096, extra: { thinking: { type: 'enabled', budget_tokens: 1024 } } } });
    p.anthropic.enqueue({ kind: 'stream', thinking: { text: 'Tests pass, so approve.' }, text: `My verdict: ${JSON.stringify(good)}` });
    const outcome = await t.agents.ask(agentId, 'Review PR 12.', { schema: Verdict });
    expect(outcome.value).toEqual(good);
    expect(outcome.answer.metadata).toMatchObject({ typed_answer: { repairs: ['ignored text around the JSON'] } });
    expect(lastBody(p.anthropic)).toMatchObject({ tool_choice: { type: 'auto' }, thinking: { type: 'enabled' } });
  });
});

test.each([OPENAI, ANTHROPIC])('a tool call before the typed answer (%s)', async (model) => {
  await worker(async () => {
    const agentId = uniqueId('typed-tool');
    await t.agents.start(agentId, { model });
    if (model === OPENAI) {
      p.openai.enqueue({ kind: 'stream', toolCalls: [{ name: 'lookup_pr', arguments: '{"id": 12}' }] }, { kind: 'stream', text: JSON.stringify(good) });
    } else {
      p.anthropic.enqueue(
        { kind: 'stream', toolCalls: [{ name: 'lookup_pr', input: { id: 12 } }] },
        { kind: 'stream', text: 'Done.', toolCalls: [{ name: 'final_answer', input: good }] },
      );
    }
    const outcome = await t.agents.ask(agentId, 'Review PR 12.', { schema: Verdict });
    expect(outcome.value).toEqual(good);
    const kinds = (await t.agents.history(agentId)).map((e) => e.kind);
    expect(kinds.slice(-4)).toEqual(['model_input', 'model_output', 'tool_results', 'model_output']);
    const fake = model === OPENAI ? p.openai : p.anthropic;
    expect(fake.requests).toHaveLength(2);
    // Both calls of the turn carry the schema; the second one after the tool's result.
    for (const r of fake.requests)
      expect(model === OPENAI ? r.body.response_format?.type : r.body.tool_choice?.type).toBe(model === OPENAI ? 'json_schema' : 'any');
    expect(JSON.stringify(lastBody(fake).messages)).toContain('PR 12: adds tests');
  });
});

test('an answer that does not match is re-asked once, within the same model call (Anthropic)', async () => {
  await worker(async () => {
    const agentId = uniqueId('typed-reask');
    await t.agents.start(agentId, { model: ANTHROPIC });
    p.anthropic.enqueue(
      { kind: 'stream', toolCalls: [{ name: 'final_answer', input: { verdict: 'maybe', score: 11, reasons: [] } }] },
      { kind: 'stream', toolCalls: [{ name: 'final_answer', input: { ...good, score: '7' } }] },
    );
    const outcome = await t.agents.ask(agentId, 'Review PR 12.', { schema: Verdict });
    expect(outcome.value).toEqual(good);
    expect(outcome.answer.metadata).toMatchObject({ attempts: 1, typed_answer: { reasked: true, repairs: ['read score "7" as a number'] } });
    expect(p.anthropic.requests).toHaveLength(2);
    const reask = p.anthropic.requests[1].body;
    expect(reask.tool_choice).toEqual({ type: 'any' });
    expect(reask.messages.slice(-2)).toMatchObject([
      { role: 'assistant', content: [{ type: 'text', text: '{"verdict":"maybe","score":11,"reasons":[]}' }] },
      {
        role: 'user',
        content: [
          { type: 'text', text: expect.stringMatching(/^Your answer does not match the required JSON schema: verdict: Invalid option.*; score: Too big/) },
        ],
      },
    ]);
    // Usage counts both calls.
    expect(outcome.answer.usage!.outputTokens).toBeGreaterThan(0);
    // Only the valid answer is in history: one input, one output.
    expect((await t.agents.history(agentId)).filter((e) => e.kind === 'model_output')).toHaveLength(1);
  });
});

test('an answer that misses twice blocks the agent on ModelError.InvalidStructuredOutput; a retry asks again (OpenAI)', async () => {
  await worker(async () => {
    const agentId = uniqueId('typed-fail');
    await t.agents.start(agentId, { model: OPENAI });
    p.openai.enqueue({ kind: 'stream', text: 'I approve.' }, { kind: 'stream', text: '{"verdict": "approve"}' });
    const error = await t.agents.ask(agentId, 'Review PR 12.', { schema: Verdict }).catch((e: unknown) => e);
    expect(error).toBeInstanceOf(TypedAnswerError);
    expect((error as Error).message).toMatch(
      /ended without a typed answer \(ModelError\.InvalidStructuredOutput: The answer of openai:gpt-4\.1-mini does not match the input's response schema, also when asked again: score: .*reasons: /,
    );
    expect(p.openai.requests).toHaveLength(2); // not retried by Temporal: the re-ask was the one second chance
    const state = await t.agents.state(agentId);
    expect(state).toMatchObject({ runState: 'PendingInput', lastError: { code: 'ModelError.InvalidStructuredOutput' } });

    p.openai.enqueue({ kind: 'stream', text: JSON.stringify(good) });
    await t.agents.retry(agentId);
    const inputSeq = (error as TypedAnswerError).outcome.inputSeq;
    expect(await t.agents.waitForAnswer(agentId, inputSeq)).toMatchObject({ status: 'answered', answer: { contents: [JSON.stringify(good)] } });
    expect(p.openai.requests[2].body.response_format.type).toBe('json_schema');
  });
});

test('the CLI: send --schema FILE --wait prints the JSON; a bad schema file sends nothing', async () => {
  const env = { LIVECONTEXT_TASK_QUEUE: taskQueue };
  const dir = mkdtempSync(path.join(tmpdir(), 'typed-'));
  const file = path.join(dir, 'verdict.json');
  writeFileSync(file, JSON.stringify(z.toJSONSchema(Verdict)));
  const broken = path.join(dir, 'broken.json');
  writeFileSync(broken, JSON.stringify({ type: 'nonsense' }));
  await worker(async () => {
    const agentId = uniqueId('typed-cli');
    await t.agents.start(agentId, { model: OPENAI });
    p.openai.enqueue({ kind: 'stream', text: `Here you go:\n\`\`\`json\n${JSON.stringify(good)}\n\`\`\`` });
    const sent = await cli(['send', agentId, '--schema', file, 'Review', 'PR', '12.', '--wait'], { env });
    expect(sent).toMatchObject({ code: 0 });
    expect(JSON.parse(sent.stdout)).toEqual(good);
    expect(lastBody(p.openai).response_format.json_schema).toMatchObject({ name: 'answer', schema: { type: 'object' } });

    const refused = await cli(['send', agentId, '--schema', broken, 'again'], { env });
    expect(refused).toMatchObject({ code: 2, stderr: expect.stringContaining(`The schema ${broken} cannot be used: it is not a JSON Schema`) });
    expect(p.openai.requests).toHaveLength(1);
  });
});

test('the gateway: POST /agents/:id/input takes a responseSchema (a JSON Schema); a bad one is a 400', async () => {
  const gw = await startTestGateway(t.agents);
  try {
    await worker(async () => {
      const agentId = uniqueId('typed-gw');
      await t.agents.start(agentId, { model: ANTHROPIC });
      p.anthropic.enqueue({ kind: 'stream', toolCalls: [{ name: 'final_answer', input: { value: ['a', 'b'] } }] });
      const schema = { type: 'array', items: { type: 'string' }, minItems: 2 };
      const waited = await gw.request('POST', `/agents/${agentId}/input?wait=1`, { text: 'Two words?', responseSchema: { name: 'words', schema } });
      expect(waited).toMatchObject({ status: 200, body: { outcome: { status: 'answered' } } });
      expect(JSON.parse(waited.body.outcome.answer.contents.join(''))).toEqual(['a', 'b']); // a non-object root is unwrapped
      // Anthropic wants an object: the array schema went wrapped, as the value of `value`.
      expect(lastBody(p.anthropic).tools.find((x: { name: string }) => x.name === 'final_answer').input_schema).toMatchObject({
        type: 'object',
        required: ['value'],
      });

      const bad = await gw.request('POST', `/agents/${agentId}/input`, { text: 'x', responseSchema: { schema: { type: 'nonsense' } } });
      expect(bad.status).toBe(400);
      expect(JSON.stringify(bad.body)).toContain('not a JSON Schema this framework can check answers against (Unsupported type: nonsense)');
    });
  } finally {
    await gw.close();
  }
});
