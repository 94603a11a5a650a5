/**
 * The fingerprint a model call records of what it sent: the hash is that of the body as the SDK sends it
 * (JSON.stringify), the same arguments give the same fingerprint, a changed part is named, the whole
 * stays a few hundred bytes, and no key or header of the provider ever enters it.
 */
import { createHash } from 'node:crypto';
import { AgentState, METADATA_MAX_BYTES, type RequestFingerprint, fingerprintDifferences, fingerprintOf, renderModelContext } from '../../agent/index';
import { ToolRegistry, anthropicProvider, openaiProvider } from '../../activities/index';
import { callResult } from '../../activities/model-call/call-result';
import { MAX_FINGERPRINT_PARAMS_BYTES, requestFingerprint } from '../../activities/model-call/request-fingerprint';
import type { CallModelInput } from '../../activities/types';

const openai = { providerId: 'openai', specification: 'openai-chat-completions', model: 'gpt-4.1-mini' };
const sha256 = (text: string) => createHash('sha256').update(text).digest('hex');
const spec = { name: 'lookup', description: 'Looks a key up.', parameters: { type: 'object', properties: { key: { type: 'string' } } } };

function entries() {
  const s = new AgentState(() => 0);
  s.appendModelInput({ sections: [{ title: 'User', content: 'x'.repeat(4000) }] });
  s.appendModelOutput({ contents: ['Noted.'], toolCalls: [], invocation: openai });
  s.appendModelInput({ sections: [{ title: 'User', content: 'Look up a and b.' }] });
  s.appendModelOutput({
    contents: [],
    toolCalls: [
      { toolName: 'lookup', toolCallId: 'c1', rawArguments: '{"key":"a"}', arguments: { key: 'a' } },
      { toolName: 'lookup', toolCallId: 'c2', rawArguments: '{"key":"b"}', arguments: { key: 'b' } },
    ],
    invocation: openai,
  });
  s.appendToolResults({
    results: [
      { toolName: 'lookup', toolCallId: 'c1', status: 'Success', result: 'A' },
      { toolName: 'lookup', toolCallId: 'c2', status: 'Success', result: 'B' },
    ],
  });
  return s.entries;
}

function fingerprint(options: { budget?: number; params?: CallModelInput['params']; tools?: (typeof spec)[]; provider?: 'openai' | 'anthropic' } = {}) {
  const known = entries();
  const uptoSeq = known.at(-1)!.seq;
  const input: CallModelInput = {
    agentId: 'a-1',
    runId: 'r-1',
    uptoSeq,
    model: 'openai:gpt-4.1-mini',
    phase: 'PendingToolResults',
    ...(options.params ? { params: options.params } : {}),
  };
  const context = renderModelContext(known, { uptoSeq, ...(options.budget ? { maxInputTokens: options.budget } : {}) });
  const provider = options.provider === 'anthropic' ? anthropicProvider({ apiKey: 'sk-ant-secret-key' }) : openaiProvider({ apiKey: 'sk-secret-key' });
  const model = provider.create('gpt-4.1-mini');
  if (options.params) model.updateConfig(options.params);
  const tools = options.tools ?? [spec];
  const request = model.request!(context.messages, tools, context.system, { requestMetadata: { sessionId: 'a-1' } });
  const f = requestFingerprint({ input, context, known, segments: 0, budget: options.budget, archiveTools: false, tools: tools.length, request });
  return { f, request, context };
}

test('the hash is the SHA-256 of the body as sent, and the same call gives the same fingerprint', () => {
  const { f, request } = fingerprint();
  expect(f.sha256).toBe(sha256(JSON.stringify(request.body)));
  expect(f.bytes).toBe(Buffer.byteLength(JSON.stringify(request.body)));
  expect(f).toMatchObject({ v: 1, rendering: 'openai-chat-completions', model: 'openai:gpt-4.1-mini', first_seq: 1, tools: 1, known_from: 1 });
  expect(f.last_seq).toBe(entries().at(-1)!.seq);
  expect(fingerprint().f).toEqual(f);
  expect(Object.keys(f.parts!).sort()).toEqual(['messages', 'rest', 'tools']);
});

test('trimming is recorded: the messages left out and the first seq sent', () => {
  const { f, context } = fingerprint({ budget: 400 });
  expect(context.dropped).toBeGreaterThan(0);
  expect(f).toMatchObject({ budget: 400, dropped: context.dropped });
  expect(f.first_seq).toBeGreaterThan(2);
  expect(fingerprintDifferences(fingerprint().f, f)).toEqual(expect.arrayContaining([expect.stringMatching(/were trimmed, now/), 'the messages differ']));
});

test('a changed part is named; matching fingerprints have no differences', () => {
  const { f } = fingerprint();
  expect(fingerprintDifferences(f, f)).toEqual([]);
  expect(fingerprintDifferences(f, fingerprint({ tools: [] }).f)).toEqual(['1 tool(s) were offered, now 0', 'the tools differ']);
  expect(fingerprintDifferences(f, fingerprint({ params: { temperature: 0.5 } }).f)).toEqual(['the model parameters differ']);
  expect(fingerprintDifferences(f, fingerprint({ provider: 'anthropic' }).f)[0]).toBe('the rendering was openai-chat-completions, now anthropic-messages');
  const { sha256: _hash, ...noHash } = f;
  expect(fingerprintDifferences(noHash as RequestFingerprint, f)[0]).toMatch(/recorded without a request hash/);
});

test('small, params only when small, and never a key', () => {
  for (const provider of ['openai', 'anthropic'] as const) {
    const { f, request } = fingerprint({ provider, params: { temperature: 0.2 } });
    expect(f.params).toEqual({ temperature: 0.2 });
    expect(JSON.stringify(f).length).toBeLessThan(600);
    expect(JSON.stringify(f)).not.toMatch(/secret/);
    expect(JSON.stringify(request.body)).not.toMatch(/secret/);
  }
  const big = { extra: { note: 'n'.repeat(MAX_FINGERPRINT_PARAMS_BYTES) } };
  const { f } = fingerprint({ params: big });
  expect(f.params).toBeUndefined();
  expect(f.parts!.rest).toBeDefined();
});

test('fingerprintOf reads a known version and ignores anything else', () => {
  const { f } = fingerprint();
  expect(fingerprintOf({ request: f as never })).toEqual(f);
  expect(fingerprintOf({ request: { v: 2, model: 'x', upto_seq: 1 } })).toBeUndefined();
  expect(fingerprintOf({ request: 'nope' })).toBeUndefined();
  expect(fingerprintOf(undefined)).toBeUndefined();
});

test("on the entry's metadata, the fingerprint gives way when the metadata is crowded: params first, then all of it", () => {
  const { f } = fingerprint({ params: { temperature: 0.2 } });
  const { params: _params, ...lean } = f;
  const room = METADATA_MAX_BYTES - 512;
  const metadata = (filler: number) =>
    callResult(
      { contents: ['ok'], toolCalls: [] },
      {
        input: { agentId: 'a-1', runId: 'r-1', uptoSeq: 6, model: 'openai:gpt-4.1-mini', phase: 'PendingToolResults' },
        context: { messages: [], estimatedInputTokens: 1, dropped: 0 },
        toolSpecs: [],
        invocation: openai,
        call: { attempt: 1, activityId: '1' },
        typedMetadata: filler ? { typed_note: 'x'.repeat(filler) } : undefined,
        usageRepairs: [],
        fingerprint: f,
        tools: new ToolRegistry(),
        prices: undefined,
        offloading: true,
      },
    ).metadata!;
  const roomy = metadata(0);
  expect(fingerprintOf(roomy)).toEqual(f);
  // Filler that leaves room for the fingerprint without its params, not with them.
  const paramsBytes = JSON.stringify(f).length - JSON.stringify(lean).length;
  const filler = room - JSON.stringify(roomy).length - 20 + Math.floor(paramsBytes / 2);
  expect(fingerprintOf(metadata(filler))).toEqual(lean);
  expect(fingerprintOf(metadata(room))).toBeUndefined();
  for (const n of [0, filler, room]) if (fingerprintOf(metadata(n))) expect(JSON.stringify(metadata(n)).length).toBeLessThanOrEqual(room);
});
