/**
 * The provider contract (seed 000): every adapter, through its official SDK against a wire-level fake,
 * must turn the same provider-neutral context into a valid request and its stream into valid deltas:
 * text deltas, tool-call fragments, arguments that do not parse, a LiveScreen-decorated message, and
 * unknown message kinds ignored safely.
 */
import { anthropicProvider, openaiProvider } from '../../activities/index';
import { AgentState, type ContextMessage, type MessageDelta, MessageAssembler, type Model, type StreamOptions, renderLiveContext } from '../../agent/index';
import { opaqueSessionId } from '../../activities/models/request-identity';
import { type FakeAnthropicServer, startFakeAnthropicServer } from '../support/fake-anthropic-server';
import { type FakeOpenAIServer, startFakeOpenAIServer } from '../support/fake-openai-server';

interface Adapter {
  name: string;
  model(): Model;
  /** Script one streamed answer. */
  answer(a: { text?: string; toolCalls?: Array<{ name: string; rawJson: string }> }): void;
  /** Script one HTTP error status. */
  fail(status: number): void;
  truncate(): void;
  /** All text the provider received in its last request. */
  lastRequestText(): string;
  lastRequestBody(): Record<string, unknown>;
  requestCount(): number;
  close(): Promise<void>;
}

/** The parts of an Adapter both wire fakes serve alike: the scripted failures and the recorded requests. */
function fakeServerParts(s: {
  enqueue(response: { kind: 'error'; status: number } | { kind: 'truncated'; text: string }): void;
  requests: Array<{ body: Record<string, unknown> }>;
  close(): Promise<void>;
}): Pick<Adapter, 'fail' | 'truncate' | 'lastRequestText' | 'lastRequestBody' | 'requestCount' | 'close'> {
  return {
    fail: (status) => s.enqueue({ kind: 'error', status }),
    truncate: () => s.enqueue({ kind: 'truncated', text: 'cut short' }),
    lastRequestText: () => JSON.stringify(s.requests[s.requests.length - 1].body),
    lastRequestBody: () => s.requests[s.requests.length - 1].body,
    requestCount: () => s.requests.length,
    close: () => s.close(),
  };
}

async function openaiAdapter(): Promise<Adapter> {
  const s: FakeOpenAIServer = await startFakeOpenAIServer();
  const provider = openaiProvider({ apiKey: s.apiKey, baseURL: `${s.url}/v1` });
  return {
    name: 'openai',
    model: () => provider.create('gpt-4.1-mini'),
    answer: (a) => s.enqueue({ kind: 'stream', text: a.text, toolCalls: a.toolCalls?.map((c) => ({ name: c.name, arguments: c.rawJson })) }),
    ...fakeServerParts(s),
  };
}

async function anthropicAdapter(): Promise<Adapter> {
  const s: FakeAnthropicServer = await startFakeAnthropicServer();
  const provider = anthropicProvider({ apiKey: s.apiKey, baseURL: s.url });
  return {
    name: 'anthropic',
    model: () => provider.create('claude-sonnet-4-6'),
    answer: (a) => s.enqueue({ kind: 'stream', text: a.text, toolCalls: a.toolCalls?.map((c) => ({ name: c.name, input: {}, rawJson: c.rawJson })) }),
    ...fakeServerParts(s),
  };
}

/** How each provider spells the same ModelConfig. */
const expectedParams: Record<string, object> = {
  openai: { temperature: 0.3, top_p: 0.9, max_completion_tokens: 100, stop: ['END'], tool_choice: 'required' },
  anthropic: { temperature: 0.3, top_p: 0.9, max_tokens: 100, stop_sequences: ['END'], tool_choice: { type: 'any' } },
};

const invocation = { providerId: 'scripted', specification: 'scripted', model: 'm' };

/** A context with a finished tool round and a LiveScreen on the newest message. */
function context(): ContextMessage[] {
  const s = new AgentState(() => 0);
  s.appendModelInput({ sections: [{ title: 'Input', content: 'look something up' }] });
  s.appendModelOutput({
    contents: [],
    toolCalls: [{ toolName: 'lookup', toolCallId: 'call_1', rawArguments: '{"q":"x"}', arguments: { q: 'x' } }],
    invocation,
  });
  s.appendToolResults({ results: [{ toolName: 'lookup', toolCallId: 'call_1', status: 'Success', result: 'found it' }] });
  return renderLiveContext(s.entries, { liveScreen: '# [Live Screen]\n\n## Memory Notebook\n\nLIVE-SCREEN-MARKER' });
}

const tools = [{ name: 'lookup', description: 'Look up', parameters: { type: 'object', properties: { q: { type: 'string' } } } }];

async function run(model: Model, messages: ContextMessage[] = context(), options: StreamOptions = {}) {
  const deltas: MessageDelta[] = [];
  const assembler = new MessageAssembler();
  for await (const d of model.stream(messages, tools, 'system prompt', options)) {
    deltas.push(d);
    assembler.consume(d); // enforces the seed-002 invariants on every adapter
  }
  return { deltas, assembler };
}

describe.each([
  ['openai', openaiAdapter],
  ['anthropic', anthropicAdapter],
])('%s adapter', (_name, make) => {
  let a: Adapter;
  beforeAll(async () => (a = await make()));
  afterAll(async () => a?.close());

  test('text arrives as several text deltas, then usage and done', async () => {
    a.answer({ text: 'one two three four five' });
    const { deltas, assembler } = await run(a.model());
    expect(deltas[0].kind).toBe('start');
    expect(deltas.filter((d) => d.kind === 'text').length).toBeGreaterThan(1);
    expect(deltas.map((d) => d.kind).slice(-2)).toEqual(['usage', 'done']);
    expect(assembler.buildFinalMessage()).toMatchObject({ contents: ['one two three four five'], finishReason: 'stop' });
  });

  test('deltas are numbered and timestamped; usage carries totalTokens; start the request id', async () => {
    a.answer({ text: 'counted' });
    const before = Date.now();
    const { deltas } = await run(a.model());
    expect(deltas.map((d) => d.seq)).toEqual(deltas.map((_, i) => i + 1));
    const times = deltas.map((d) => Date.parse(d.timestamp));
    expect(times.every((ms, i) => ms >= before - 1 && ms <= Date.now() && (i === 0 || ms >= times[i - 1]))).toBe(true);
    expect(deltas[0]).toMatchObject({ kind: 'start', requestId: expect.stringMatching(/^req_/) });
    const usage = deltas.find((d) => d.kind === 'usage');
    expect(usage?.kind === 'usage' && usage.usage.totalTokens).toBe(usage?.kind === 'usage' && usage.usage.inputTokens + usage.usage.outputTokens);
    expect(deltas.some((d) => 'providerRaw' in d)).toBe(false); // not asked for
  });

  test('provider events ride on the deltas only when asked, each once, in order', async () => {
    a.answer({ text: 'raw please', toolCalls: [{ name: 'lookup', rawJson: '{"q": "x"}' }] });
    const { deltas, assembler } = await run(a.model(), context(), { providerRaw: true });
    const events = deltas.flatMap((d) => d.providerRaw ?? []) as Array<Record<string, unknown>>;
    expect(events.length).toBeGreaterThan(deltas.filter((d) => d.kind === 'text').length);
    expect(new Set(events).size).toBe(events.length);
    if (a.name === 'anthropic') expect([events[0].type, events[events.length - 1].type]).toEqual(['message_start', 'message_stop']);
    else expect(events.every((e) => e.object === 'chat.completion.chunk')).toBe(true);
    // The assembled message is the same as without them.
    expect(assembler.buildFinalMessage()).toMatchObject({ contents: ['raw please'], toolCalls: [{ toolName: 'lookup', arguments: { q: 'x' } }] });
  });

  test('requestMetadata: the session goes out as an opaque end-user id, run and trace ids do not', async () => {
    a.answer({ text: 'ok' });
    await run(a.model(), context(), { requestMetadata: { sessionId: 'alice@example.com', runId: 'run-123', traceId: 'trace-456' } });
    const body = a.lastRequestBody();
    const id = a.name === 'openai' ? body.user : (body.metadata as { user_id?: string } | undefined)?.user_id;
    expect(id).toBe(opaqueSessionId('alice@example.com'));
    expect(a.lastRequestText()).not.toMatch(/alice|run-123|trace-456/);
    a.answer({ text: 'ok' });
    await run(a.model());
    expect(a.lastRequestBody()).not.toHaveProperty(a.name === 'openai' ? 'user' : 'metadata');
  });

  test('tool calls arrive as fragments and assemble to the raw argument text', async () => {
    a.answer({
      toolCalls: [
        { name: 'lookup', rawJson: '{"q": "first query"}' },
        { name: 'lookup', rawJson: '{"q": "second"}' },
      ],
    });
    const { deltas, assembler } = await run(a.model());
    expect(deltas.filter((d) => d.kind === 'tool_call_args').length).toBeGreaterThan(2);
    const message = assembler.buildFinalMessage();
    expect(message.toolCalls.map((c) => c.arguments)).toEqual([{ q: 'first query' }, { q: 'second' }]);
    expect(message.toolCalls.map((c) => c.rawArguments)).toEqual(['{"q": "first query"}', '{"q": "second"}']);
    expect(message.finishReason).toBe('tool_calls');
  });

  test('arguments that do not parse become a ParseError on the call, raw text kept', async () => {
    a.answer({ toolCalls: [{ name: 'lookup', rawJson: '{"q": "unterminated' }] });
    const { assembler } = await run(a.model());
    const [call] = assembler.buildFinalMessage().toolCalls;
    expect(call.rawArguments).toBe('{"q": "unterminated');
    expect(call.parseError).toMatch(/not valid JSON/);
  });

  test('the LiveScreen-decorated message reaches the provider, once', async () => {
    a.answer({ text: 'ok' });
    await run(a.model());
    expect(a.lastRequestText().split('LIVE-SCREEN-MARKER')).toHaveLength(2);
    expect(a.lastRequestText()).toContain('found it');
  });

  test('unknown message kinds are ignored; the request stays valid', async () => {
    a.answer({ text: 'fine' });
    const messages = [...context()];
    messages.splice(1, 0, { kind: 'future_kind', data: 'x' } as unknown as ContextMessage);
    const { assembler } = await run(a.model(), messages);
    expect(assembler.buildFinalMessage().contents).toEqual(['fine']);
    expect(a.lastRequestText()).not.toContain('future_kind');
  });

  test("model parameters (seed 002 ModelConfig) reach the request in the provider's spelling", async () => {
    a.answer({ text: 'ok' });
    const model = a.model();
    model.updateConfig({ temperature: 0.3, topP: 0.9, maxTokens: 100, stopSequences: ['END'], toolChoice: 'required' });
    await run(model);
    expect(a.lastRequestBody()).toMatchObject(expectedParams[a.name]);
  });

  test('HTTP errors end the stream with one error delta carrying the mapped code', async () => {
    a.fail(401);
    const { deltas, assembler } = await run(a.model());
    expect(deltas.map((d) => d.kind)).toEqual(['start', 'error']);
    expect(assembler.getError()).toMatchObject({ code: 'ModelError.Authentication', retryable: false });
  });

  test('a stream that ends without its finish is an error, not a message', async () => {
    a.truncate();
    const { assembler } = await run(a.model());
    expect(assembler.getError()).toMatchObject({ code: 'ModelError.StreamIncomplete', retryable: true });
  });
});
