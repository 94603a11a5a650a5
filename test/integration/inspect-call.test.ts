/**
 * `inspect --call` on the real dev server: every model call records a fingerprint of what it sent, and
 * the request rendered again from history has the same SHA-256 — which is also the SHA-256 of the bytes
 * the wire fake received. Covered: a context trimmed to a small window, an input with an image, a tool
 * batch (two calls in one output, their results in the next request), a compaction's summary, calls of
 * an archived agent (read back from segments), Anthropic's rendering; and the warnings when the call
 * cannot be reproduced (a tool gone from the worker, a call without a fingerprint).
 */
import { createHash } from 'node:crypto';
import { z } from 'zod';
import { ScriptedModelProvider, defineTool } from '../../activities/index';
import { type HistoryEntry, type ModelOutputEntry, fingerprintOf } from '../../agent/index';
import { makePng } from '../fixtures/images';
import { maybeRecordHistory } from '../support/record-history';
import { useProviderServers } from '../support/provider-servers';
import { uniqueId, withWorker } from '../support/temporal';

const { t, p, taskQueue } = useProviderServers('inspect', { each: true });

const lookup = defineTool({
  name: 'lookup',
  description: 'Looks a key up.',
  parameters: z.object({ key: z.string() }),
  execute: ({ key }) => `value of ${key}`,
});

const sha256 = (text: string) => createHash('sha256').update(text).digest('hex');
const outputs = (history: HistoryEntry[]) => history.filter((e): e is ModelOutputEntry => e.kind === 'model_output');

/** Every model call of the agent inspected: each reproduced, each hash the one of the bytes the fake got (in call order). */
async function expectEveryCallReproduced(agentId: string, wire: Array<{ raw: string }>) {
  const calls = outputs(await t.agents.history(agentId));
  expect(calls).toHaveLength(wire.length);
  const inspected = [];
  for (const [i, call] of calls.entries()) {
    const result = await t.agents.inspectCall(agentId, call.seq);
    expect({ seq: call.seq, reproduced: result.reproduced, warnings: result.warnings }).toEqual({ seq: call.seq, reproduced: true, warnings: [] });
    expect(result.sha256).toBe(sha256(wire[i].raw));
    expect(result.recorded).toEqual(fingerprintOf(call.metadata));
    expect(JSON.stringify(result.request!.body)).toBe(wire[i].raw);
    inspected.push(result);
  }
  return inspected;
}

test('OpenAI: calls with trimming, an image and a tool batch are reproduced exactly', async () => {
  const agentId = uniqueId('inspect-openai');
  const photo = makePng(64, 48, { noise: true }).toString('base64');
  p.openai.enqueue(
    { kind: 'stream', text: 'Noted.' },
    {
      kind: 'stream',
      toolCalls: [
        { name: 'lookup', arguments: '{"key":"a"}' },
        { name: 'lookup', arguments: '{"key":"b"}' },
      ],
    },
    { kind: 'stream', text: 'A noisy square; a and b looked up.' },
  );
  const before = p.openai.requests.length;
  await withWorker({ taskQueue, tools: [lookup], models: p.models() }, async () => {
    // A window of 2,000 tokens (1,500 for the input) under policy `trim`: the long first turn (~1,300 tokens) is trimmed from the later calls.
    await t.agents.start(agentId, {
      model: 'openai:gpt-4.1-mini',
      systemInstruction: 'You are a test agent.',
      contextWindow: 2_000,
      tools: ['lookup'],
      context: { policy: 'trim' },
    });
    const long = Array.from({ length: 650 }, (_, i) => `word${i}`).join(' ');
    expect(await t.agents.ask(agentId, `Remember this: ${long}`)).toMatchObject({ status: 'answered' });
    const second = await t.agents.ask(agentId, {
      text: `What is in this photo? Look up a and b too. ${Array.from({ length: 100 }, (_, i) => `note${i}`).join(' ')}`,
      attachments: [{ type: 'image', mediaType: 'image/png', data: photo, name: 'photo.png' }],
    });
    expect(second).toMatchObject({ status: 'answered', answer: { contents: ['A noisy square; a and b looked up.'] } });

    const inspected = await expectEveryCallReproduced(agentId, p.openai.requests.slice(before));
    const [first, batch, after] = inspected;
    expect(first.recorded).toMatchObject({ rendering: 'openai-chat-completions', model: 'openai:gpt-4.1-mini', window: 2_000, budget: 1_500, tools: 1 });
    expect(first.recorded!.dropped).toBeUndefined();
    // The image's call: trimmed (the first turn left out), the image in the body.
    expect(batch.recorded!.dropped).toBeGreaterThan(0);
    expect(batch.recorded!.first_seq).toBeGreaterThan(first.recorded!.last_seq!);
    expect(JSON.stringify(batch.request!.body)).toContain(`data:image/png;base64,${photo}`);
    // After the batch of two tool calls: both results in one request, still trimmed.
    const tools = (after.request!.body.messages as Array<{ role: string }>).filter((m) => m.role === 'tool');
    expect(tools).toHaveLength(2);
    expect(after.recorded!.dropped).toBeGreaterThan(0);
    // Small: a fingerprint is a few hundred bytes whatever the request's size.
    for (const c of inspected) expect(JSON.stringify(c.recorded).length).toBeLessThan(700);
    await maybeRecordHistory(t.agents.handle(agentId), 'inspect-call-fingerprint_v1.json');
    // The short workflow that rendered the last call again (a local activity), for the replay suite too.
    await maybeRecordHistory(t.client.workflow.getHandle(`livecontext-inspect-${agentId}-${inspected[2].seq}`), 'inspect-call-workflow_v1.json');
  });
});

test('policy compact: the call after a compaction, its summary in place of the turns it covers, is reproduced exactly', async () => {
  const agentId = uniqueId('inspect-compact');
  p.openai.enqueue(
    { kind: 'stream', text: 'Noted.' },
    { kind: 'stream', text: 'Summary: the user asked to remember many words.' },
    { kind: 'stream', toolCalls: [{ name: 'lookup', arguments: '{"key":"a"}' }] },
    { kind: 'stream', text: 'a looked up.' },
  );
  const before = p.openai.requests.length;
  await withWorker({ taskQueue, tools: [lookup], models: p.models() }, async () => {
    await t.agents.start(agentId, { model: 'openai:gpt-4.1-mini', contextWindow: 2_000, tools: ['lookup'] });
    const long = Array.from({ length: 650 }, (_, i) => `word${i}`).join(' ');
    expect(await t.agents.ask(agentId, `Remember this: ${long}`)).toMatchObject({ status: 'answered' });
    expect(await t.agents.ask(agentId, `Look up a. ${Array.from({ length: 100 }, (_, i) => `note${i}`).join(' ')}`)).toMatchObject({ status: 'answered' });
    // The second request was the compaction's summary call (no model_output of its own).
    const wire = p.openai.requests.slice(before);
    expect(wire).toHaveLength(4);
    const inspected = await expectEveryCallReproduced(agentId, [wire[0], wire[2], wire[3]]);
    for (const call of inspected.slice(1)) {
      expect(call.recorded).toMatchObject({ compact: true, compaction_seq: expect.any(Number), archive_tools: true });
      expect(call.recorded!.dropped).toBeUndefined();
      expect(JSON.stringify(call.request!.body)).toContain('Summary: the user asked to remember many words.');
    }
  });
});

test('an agent past its working set: calls archived since, and calls that read archived segments, are reproduced exactly', async () => {
  const agentId = uniqueId('inspect-archive');
  // ~700-token answers: a 16 KiB working set is passed every few turns.
  p.openai.respond = () => ({ kind: 'stream', text: `${'lorem '.repeat(700)}` });
  const before = p.openai.requests.length;
  await withWorker({ taskQueue, models: p.models() }, async () => {
    // A window of 8,000 tokens (6,000 for the input): a call reads the newest segments only, starting from a segment's state.
    await t.agents.start(agentId, {
      model: 'openai:gpt-4.1-mini',
      systemInstruction: 'Remember everything.',
      workingSetBytes: 16 * 1024,
      contextWindow: 8_000,
      context: { policy: 'trim' },
    });
    for (let i = 0; i < 12; i++) expect(await t.agents.ask(agentId, `turn ${i}`)).toMatchObject({ status: 'answered' });
    const archive = (await t.agents.snapshot(agentId)).archive!;
    expect(archive.segments.length).toBeGreaterThan(1);

    const inspected = await expectEveryCallReproduced(agentId, p.openai.requests.slice(before));
    expect(inspected.filter((c) => c.seq <= archive.throughSeq).length).toBeGreaterThan(0); // rendered from the archive
    const readSegments = inspected.filter((c) => (c.recorded!.segments ?? 0) > 0);
    expect(readSegments.length).toBeGreaterThan(0);
    expect(readSegments.some((c) => c.recorded!.known_from! > 1)).toBe(true); // the system instruction came from a segment's state
    for (const c of readSegments)
      expect((c.request!.body.messages as Array<{ role: string; content: string }>)[0]).toEqual({ role: 'system', content: 'Remember everything.' });
  });
});

test('Anthropic: a tool batch and its results are reproduced exactly in the Messages rendering', async () => {
  const agentId = uniqueId('inspect-anthropic');
  p.anthropic.enqueue(
    {
      kind: 'stream',
      text: 'Looking both up.',
      toolCalls: [
        { name: 'lookup', input: { key: 'x' } },
        { name: 'lookup', input: { key: 'y' } },
      ],
    },
    { kind: 'stream', text: 'x and y found.' },
  );
  const before = p.anthropic.requests.length;
  await withWorker({ taskQueue, tools: [lookup], models: p.models() }, async () => {
    await t.agents.start(agentId, { model: 'anthropic:claude-sonnet-4-6', systemInstruction: 'Be brief.', params: { temperature: 0.2 } });
    expect(await t.agents.ask(agentId, 'Look up x and y.')).toMatchObject({ status: 'answered' });
    const [, results] = await expectEveryCallReproduced(agentId, p.anthropic.requests.slice(before));
    expect(results.recorded).toMatchObject({ rendering: 'anthropic-messages', params: { temperature: 0.2 } });
    const user = (results.request!.body.messages as Array<{ role: string; content: Array<{ type: string }> }>).at(-1)!;
    expect(user.content.filter((b) => b.type === 'tool_result')).toHaveLength(2);
  });
});

test('a call that cannot be reproduced says so and why: a tool gone from the worker, a model without a wire request', async () => {
  const agentId = uniqueId('inspect-gone');
  p.openai.enqueue({ kind: 'stream', text: 'Hello.' });
  const [call] = await withWorker({ taskQueue, tools: [lookup], models: p.models() }, async () => {
    await t.agents.start(agentId, { model: 'openai:gpt-4.1-mini', tools: ['lookup'] });
    expect(await t.agents.ask(agentId, 'Hi.')).toMatchObject({ status: 'answered' });
    return outputs(await t.agents.history(agentId));
  });
  // The same agent inspected by a worker without the tool.
  await withWorker({ taskQueue, models: p.models() }, async () => {
    const result = await t.agents.inspectCall(agentId, call.seq);
    expect(result.reproduced).toBe(false);
    expect(result.sha256).not.toBe(result.recorded!.sha256);
    expect(result.warnings.join('\n')).toContain('not on this worker: lookup');
    expect(result.warnings.join('\n')).toMatch(/does not match the one recorded: 1 tool\(s\) were offered, now 0; the tools differ/);
    // Not a model call: refused, saying what the entry is.
    await expect(t.agents.inspectCall(agentId, call.seq - 1)).rejects.toMatchObject({
      code: 'NOT_A_MODEL_CALL',
      message: expect.stringMatching(/is a model_input entry/),
    });
    await expect(t.agents.inspectCall(agentId, 999)).rejects.toMatchObject({ code: 'NOT_A_MODEL_CALL', message: expect.stringMatching(/has no entry #999/) });
  });

  // A scripted model has no wire request: nothing to fingerprint, its entry stays as before.
  const scripted = new ScriptedModelProvider({ x: [{ text: 'Scripted.' }] });
  const other = uniqueId('inspect-scripted');
  await withWorker({ taskQueue, models: [scripted] }, async () => {
    await t.agents.start(other, { model: 'scripted:x' });
    expect(await t.agents.ask(other, 'Hi.')).toMatchObject({ status: 'answered' });
    const [out] = outputs(await t.agents.history(other));
    expect(out.metadata!.request).toBeUndefined();
    const result = await t.agents.inspectCall(other, out.seq);
    expect(result).toMatchObject({ reproduced: false, rendered: { model: 'scripted:x', first_seq: 1, upto_seq: 1 } });
    expect(result.recorded).toBeUndefined();
    expect(result.warnings.join('\n')).toMatch(/recorded no fingerprint[^]*has no wire request/);
  });
});
