/**
 * The fake Anthropic server, driven by the real @anthropic-ai/sdk over HTTP (no SDK mocks): what the SDK
 * sees from it must be what it would see from the real Messages API, including how it fails.
 */
import Anthropic from '@anthropic-ai/sdk';
import type { MessageCreateParamsStreaming, MessageParam, RawMessageStreamEvent } from '@anthropic-ai/sdk/resources/messages';
import { startFakeAnthropicServer, type FakeAnthropicServer } from '../support/fake-anthropic-server';

const MODEL = 'claude-sonnet-4-6';

let server: FakeAnthropicServer;
let client: Anthropic;

beforeAll(async () => {
  server = await startFakeAnthropicServer();
  client = new Anthropic({ baseURL: server.url, apiKey: server.apiKey, maxRetries: 0 });
});

afterAll(async () => {
  await server.close();
});

function params(overrides: Partial<MessageCreateParamsStreaming> = {}): MessageCreateParamsStreaming {
  return { model: MODEL, max_tokens: 1024, messages: [{ role: 'user', content: 'Hello' }], stream: true, ...overrides };
}

async function collect(p: MessageCreateParamsStreaming): Promise<RawMessageStreamEvent[]> {
  const events: RawMessageStreamEvent[] = [];
  for await (const event of await client.messages.create(p)) events.push(event);
  return events;
}

/** The rejection of `promise`, which must reject. Typed `any`: the tests probe fields of several error classes. */
// eslint-disable-next-line @typescript-eslint/no-explicit-any
async function rejection(promise: Promise<unknown>): Promise<any> {
  try {
    await promise;
  } catch (e) {
    return e;
  }
  throw new Error('expected a rejection');
}

type DeltaEvent = Extract<RawMessageStreamEvent, { type: 'content_block_delta' }>;

/** The content_block_delta events whose delta has `type`, typed by it. */
function deltas<T extends DeltaEvent['delta']['type']>(events: RawMessageStreamEvent[], type: T) {
  return events.flatMap((e) =>
    e.type === 'content_block_delta' && e.delta.type === type ? [e as DeltaEvent & { delta: Extract<DeltaEvent['delta'], { type: T }> }] : [],
  );
}

describe('fake Anthropic server through the real SDK', () => {
  test('streams text as several text deltas in the real event order', async () => {
    server.enqueue({ kind: 'stream', text: 'Hello from the fake Anthropic server!' });
    const { data: stream, response } = await client.messages.create(params()).withResponse();
    expect(response.headers.get('request-id')).toMatch(/^req_[A-Za-z0-9]{24}$/);
    const events: RawMessageStreamEvent[] = [];
    for await (const e of stream) events.push(e);

    expect(events.map((e) => e.type)).toEqual([
      'message_start',
      'content_block_start',
      ...deltas(events, 'text_delta').map(() => 'content_block_delta'),
      'content_block_stop',
      'message_delta',
      'message_stop',
    ]);
    const start = events[0] as Extract<RawMessageStreamEvent, { type: 'message_start' }>;
    expect(start.message).toMatchObject({ type: 'message', role: 'assistant', content: [], model: MODEL, stop_reason: null });
    expect(start.message.id).toMatch(/^msg_/);
    expect(start.message.usage).toMatchObject({ output_tokens: 1, cache_creation_input_tokens: 0, cache_read_input_tokens: 0 });
    expect(start.message.usage.input_tokens).toBeGreaterThan(0);
    const texts = deltas(events, 'text_delta').map((e) => e.delta.text);
    expect(texts.length).toBeGreaterThan(1);
    expect(texts.join('')).toBe('Hello from the fake Anthropic server!');
    const delta = events.find((e) => e.type === 'message_delta') as Extract<RawMessageStreamEvent, { type: 'message_delta' }>;
    expect(delta.delta).toMatchObject({ stop_reason: 'end_turn', stop_sequence: null });
    expect(delta.usage.output_tokens).toBe(Math.ceil('Hello from the fake Anthropic server!'.length / 4));

    const recorded = server.requests.at(-1)!;
    expect(recorded).toMatchObject({ method: 'POST', path: '/v1/messages', body: { model: MODEL, stream: true } });
    expect(recorded.headers['anthropic-version']).toBeTruthy();
  });

  test('thinking block first, with its signature, through messages.stream().finalMessage()', async () => {
    server.enqueue({ kind: 'stream', thinking: { text: 'Let me think about this carefully.', signature: 'sig-abc' }, text: 'The answer.' });
    const message = await client.messages.stream({ ...params(), thinking: { type: 'enabled', budget_tokens: 1024 }, max_tokens: 2048 }).finalMessage();
    expect(message.content).toEqual([
      { type: 'thinking', thinking: 'Let me think about this carefully.', signature: 'sig-abc' },
      { type: 'text', text: 'The answer.' },
    ]);
    expect(message.stop_reason).toBe('end_turn');
  });

  test('raw events: thinking deltas then exactly one signature_delta', async () => {
    server.enqueue({ kind: 'stream', thinking: { text: 'Some long thinking text here.' }, text: 'ok' });
    const events = await collect(params());
    expect(deltas(events, 'thinking_delta').length).toBeGreaterThan(1);
    const signatures = deltas(events, 'signature_delta');
    expect(signatures).toHaveLength(1);
    expect(signatures[0].index).toBe(0);
    expect(signatures[0].delta.signature).toMatch(/^sig-/);
  });

  test('two tool_use blocks with input JSON in fragments, reassembled', async () => {
    const inputs = [
      { path: '/tmp/a.txt', lines: [1, 2, 3] },
      { query: 'weather in Paris', units: 'metric' },
    ];
    server.enqueue({
      kind: 'stream',
      text: 'Using tools.',
      toolCalls: [
        { name: 'read_file', input: inputs[0] },
        { id: 'toolu_given', name: 'search', input: inputs[1] },
      ],
    });
    const events = await collect(params());
    const starts = events.flatMap((e) => (e.type === 'content_block_start' && e.content_block.type === 'tool_use' ? [e] : []));
    expect(starts.map((s) => s.index)).toEqual([1, 2]);
    const [first, second] = starts.map((s) => s.content_block as Anthropic.ToolUseBlock);
    expect(first).toMatchObject({ name: 'read_file', input: {} });
    expect(first.id).toMatch(/^toolu_[A-Za-z0-9]{24}$/);
    expect(second.id).toBe('toolu_given');
    for (const [k, s] of starts.entries()) {
      const fragments = deltas(events, 'input_json_delta')
        .filter((e) => e.index === s.index)
        .map((e) => e.delta.partial_json);
      expect(fragments.filter((f) => f !== '').length).toBeGreaterThan(1);
      expect(JSON.parse(fragments.join(''))).toEqual(inputs[k]);
    }
    const delta = events.find((e) => e.type === 'message_delta') as Extract<RawMessageStreamEvent, { type: 'message_delta' }>;
    expect(delta.delta.stop_reason).toBe('tool_use');

    server.enqueue({
      kind: 'stream',
      toolCalls: [
        { name: 'read_file', input: inputs[0] },
        { name: 'search', input: inputs[1] },
      ],
    });
    const message = await client.messages.stream(params()).finalMessage();
    expect(message.content.map((b) => (b.type === 'tool_use' ? b.input : null))).toEqual(inputs);
  });

  test('a valid tool round trip is accepted', async () => {
    server.enqueue({ kind: 'stream', text: 'Done.' });
    const messages: MessageParam[] = [
      { role: 'user', content: 'Read two files' },
      {
        role: 'assistant',
        content: [
          { type: 'text', text: 'Sure.' },
          { type: 'tool_use', id: 'toolu_1', name: 'read', input: {} },
          { type: 'tool_use', id: 'toolu_2', name: 'read', input: { p: 1 } },
        ],
      },
      {
        role: 'user',
        content: [
          { type: 'tool_result', tool_use_id: 'toolu_2', content: 'b' },
          { type: 'tool_result', tool_use_id: 'toolu_1', content: [{ type: 'text', text: 'a' }], is_error: true },
          { type: 'text', text: 'go on' },
        ],
      },
    ];
    const tools: Anthropic.Tool[] = [{ name: 'read', description: 'read a file', input_schema: { type: 'object', properties: {} } }];
    const events = await collect(params({ messages, tools, tool_choice: { type: 'auto' } }));
    expect(events.at(-1)!.type).toBe('message_stop');
  });

  describe('invalid requests get the real 400 and do not consume the script', () => {
    async function badRequest(p: object): Promise<InstanceType<typeof Anthropic.BadRequestError>> {
      const before = server.requests.length;
      const err = await rejection(client.messages.create(p as unknown as MessageCreateParamsStreaming));
      expect(err).toBeInstanceOf(Anthropic.BadRequestError);
      expect(err.status).toBe(400);
      expect(err.type).toBe('invalid_request_error');
      expect(err.error).toEqual({ type: 'error', error: { type: 'invalid_request_error', message: err.apiMessage } });
      expect(server.requests.length).toBe(before + 1); // recorded even though rejected
      return err;
    }

    /** A request whose assistant turn calls `read` as toolu_x, followed by `next`. */
    const afterToolUse = (next: MessageParam) =>
      params({
        messages: [{ role: 'user', content: 'hi' }, { role: 'assistant', content: [{ type: 'tool_use', id: 'toolu_x', name: 'read', input: {} }] }, next],
      });

    test('two user messages in a row', async () => {
      server.enqueue({ kind: 'stream', text: 'still queued' });
      const err = await badRequest(
        params({
          messages: [
            { role: 'user', content: 'a' },
            { role: 'user', content: 'b' },
          ],
        }),
      );
      expect(err.apiMessage).toBe('messages: roles must alternate between "user" and "assistant", but found multiple "user" roles in a row');
      // The queued response was not consumed by the rejected request.
      const events = await collect(params());
      expect(
        deltas(events, 'text_delta')
          .map((e) => e.delta.text)
          .join(''),
      ).toBe('still queued');
    });

    test('tool_use without tool_result in the next message', async () => {
      const err = await badRequest(afterToolUse({ role: 'user', content: 'what happened?' }));
      expect(err.apiMessage).toBe(
        'messages.1: `tool_use` ids were found without `tool_result` blocks immediately after: toolu_x. Each `tool_use` block must have a corresponding `tool_result` block in the next message.',
      );
    });

    test('tool_result with an id that the previous message did not use', async () => {
      const err = await badRequest(
        afterToolUse({
          role: 'user',
          content: [
            { type: 'tool_result', tool_use_id: 'toolu_x', content: 'ok' },
            { type: 'tool_result', tool_use_id: 'toolu_y', content: 'ok' },
          ],
        }),
      );
      expect(err.apiMessage).toBe(
        'messages.2.content.1: unexpected `tool_use_id` found in `tool_result` blocks: toolu_y. Each `tool_result` block must have a corresponding `tool_use` block in the previous message.',
      );
    });

    test('tool_result after a text block', async () => {
      const err = await badRequest(
        afterToolUse({
          role: 'user',
          content: [
            { type: 'text', text: 'here you go' },
            { type: 'tool_result', tool_use_id: 'toolu_x', content: 'ok' },
          ],
        }),
      );
      // The real API only counts the leading tool_result blocks, so it reports the tool_use as unanswered;
      // the fake adds which block is out of place.
      expect(err.apiMessage).toMatch(/^messages\.1: `tool_use` ids were found without `tool_result` blocks immediately after: toolu_x\. /);
      expect(err.apiMessage).toContain('messages.2.content.1 answers it, but `tool_result` blocks must come before any other block in a user message');
    });

    test('missing max_tokens', async () => {
      const { max_tokens: _omit, ...rest } = params();
      const err = await badRequest(rest);
      expect(err.apiMessage).toBe('max_tokens: Field required');
    });

    test.each([
      ['stream: false', { stream: false }, /^stream: .*streaming/],
      ['first message from the assistant', { messages: [{ role: 'assistant', content: 'hi' }] }, /^messages: first message must use the "user" role$/],
      ['empty text block', { messages: [{ role: 'user', content: [{ type: 'text', text: '' }] }] }, /^messages: text content blocks must be non-empty$/],
      ['role system', { messages: [{ role: 'system', content: 'x' }] }, /^messages\.0\.role: Input should be 'user' or 'assistant'$/],
      ['temperature above 1', { temperature: 1.5 }, /^temperature: Input should be less than or equal to 1$/],
      ['unknown top-level field', { foo: 1 }, /^foo: Extra inputs are not permitted$/],
      ['bad tool name', { tools: [{ name: 'bad name', input_schema: { type: 'object' } }] }, /^tools\.0\.custom\.name: String should match pattern/],
      [
        'tool_choice naming a missing tool',
        { tools: [{ name: 'a', input_schema: { type: 'object' } }], tool_choice: { type: 'tool', name: 'b' } },
        /tool 'b' was not found/,
      ],
      [
        'thinking budget below 1024',
        { thinking: { type: 'enabled', budget_tokens: 500 } },
        /^thinking\.enabled\.budget_tokens: Input should be greater than or equal to 1024$/,
      ],
      [
        'thinking budget not below max_tokens',
        { max_tokens: 2000, thinking: { type: 'enabled', budget_tokens: 2000 } },
        /^`max_tokens` must be greater than `thinking\.budget_tokens`/,
      ],
      [
        'thinking block without signature',
        {
          messages: [
            { role: 'user', content: 'a' },
            {
              role: 'assistant',
              content: [
                { type: 'thinking', thinking: 'x' },
                { type: 'text', text: 'y' },
              ],
            },
            { role: 'user', content: 'b' },
          ],
        },
        /^messages\.1\.content\.0\.thinking\.signature: Field required$/,
      ],
      [
        'tool_use id with bad characters',
        {
          messages: [
            { role: 'user', content: 'a' },
            { role: 'assistant', content: [{ type: 'tool_use', id: 'tool use!', name: 'n', input: {} }] },
          ],
        },
        /^messages\.1\.content\.0\.tool_use\.id: String should match pattern/,
      ],
      ['stop_sequences not strings', { stop_sequences: [1] }, /^stop_sequences\.0: Input should be a valid string$/],
      [
        'five cache breakpoints',
        { system: [1, 2, 3, 4, 5].map((n) => ({ type: 'text', text: `part ${n}`, cache_control: { type: 'ephemeral' } })) },
        /^A maximum of 4 blocks with cache_control may be provided\. Found 5\.$/,
      ],
    ])('%s', async (_name, overrides, message) => {
      const err = await badRequest({ ...params(), ...overrides });
      expect(err.apiMessage).toMatch(message);
    });
  });

  test('wrong API key → AuthenticationError 401', async () => {
    const wrong = new Anthropic({ baseURL: server.url, apiKey: 'sk-ant-wrong', maxRetries: 0 });
    const err = await rejection(wrong.messages.create(params()));
    expect(err).toBeInstanceOf(Anthropic.AuthenticationError);
    expect(err.status).toBe(401);
    expect(err.error).toEqual({ type: 'error', error: { type: 'authentication_error', message: 'invalid x-api-key' } });
    expect(err.requestID).toMatch(/^req_/);
  });

  test('the x-api-key header is accepted too, and anthropic-version is required', async () => {
    const headers = { 'content-type': 'application/json', 'x-api-key': server.apiKey };
    const body = JSON.stringify(params());
    const missing = await fetch(`${server.url}/v1/messages`, { method: 'POST', headers, body });
    expect(missing.status).toBe(400);
    expect(await missing.json()).toEqual({ type: 'error', error: { type: 'invalid_request_error', message: 'anthropic-version: header is required' } });

    server.enqueue({ kind: 'stream', text: 'hi' });
    const ok = await fetch(`${server.url}/v1/messages`, { method: 'POST', headers: { ...headers, 'anthropic-version': '2023-06-01' }, body });
    expect(ok.status).toBe(200);
    expect(ok.headers.get('content-type')).toMatch(/^text\/event-stream/);
    expect(await ok.text()).toMatch(/^event: message_start\ndata: \{.*\}\n\nevent: ping\ndata: \{"type":"ping"\}\n\n/);

    const notFound = await fetch(`${server.url}/v1/complete`, { method: 'POST', headers, body });
    expect(notFound.status).toBe(404);
    expect(notFound.headers.get('request-id')).toMatch(/^req_/);
    expect(await notFound.json()).toEqual({ type: 'error', error: { type: 'not_found_error', message: 'Not Found' } });
  });

  test('429 with retry-after visible on the error headers', async () => {
    server.enqueue({ kind: 'error', status: 429, headers: { 'retry-after': '7' } });
    const err = await rejection(client.messages.create(params()));
    expect(err).toBeInstanceOf(Anthropic.RateLimitError);
    expect(err.status).toBe(429);
    expect(err.type).toBe('rate_limit_error');
    expect(err.headers.get('retry-after')).toBe('7');
  });

  test('529 overloaded', async () => {
    server.enqueue({ kind: 'error', status: 529 });
    const err = await rejection(client.messages.create(params()));
    expect(err).toBeInstanceOf(Anthropic.InternalServerError);
    expect(err.status).toBe(529);
    expect(err.type).toBe('overloaded_error');
    expect(err.error).toEqual({ type: 'error', error: { type: 'overloaded_error', message: 'Overloaded' } });
  });

  // Observed: the SDK does not wrap a dropped connection mid-body. Raw iteration throws undici's
  // `TypeError: terminated` (cause: SocketError "other side closed", UND_ERR_SOCKET) after yielding the
  // events that arrived; messages.stream() turns it into an AnthropicError (see the realm note below).
  test('cut mid-stream: the SDK throws "terminated" after the events that arrived', async () => {
    server.enqueue({ kind: 'cut', afterEvents: 4 }); // message_start, ping, content_block_start, one delta
    const events: RawMessageStreamEvent[] = [];
    const err = await rejection(
      (async () => {
        for await (const e of await client.messages.create(params())) events.push(e);
      })(),
    );
    expect(events.map((e) => e.type)).toEqual(['message_start', 'content_block_start', 'content_block_delta']);
    expect(err.name).toBe('TypeError'); // from undici, in Node's realm, so not `instanceof` jest's TypeError
    expect(err).not.toBeInstanceOf(Anthropic.APIError);
    expect(err.message).toBe('terminated');
    expect(err.cause?.code).toBe('UND_ERR_SOCKET');

    server.enqueue({ kind: 'cut', afterEvents: 4 });
    const helperErr = await rejection(client.messages.stream(params()).finalMessage());
    expect(helperErr).toBeInstanceOf(Anthropic.AnthropicError);
    // 'terminated' in plain Node (with the TypeError as `cause`); under jest, undici's TypeError is not
    // `instanceof Error` in the test realm, so the SDK stringifies it: 'TypeError: terminated', no cause.
    expect(helperErr.message).toMatch(/^(TypeError: )?terminated$/);
  });

  // Observed: a body that ends cleanly without message_delta/message_stop is NOT an error for raw
  // iteration: it just ends. Only messages.stream() notices, because no message was completed.
  test('truncated: raw iteration ends silently; finalMessage() rejects', async () => {
    server.enqueue({ kind: 'truncated', text: 'This answer stops half way' });
    const events = await collect(params());
    expect(events.map((e) => e.type)).not.toContain('message_stop');
    expect(events.map((e) => e.type)).not.toContain('message_delta');
    expect(
      deltas(events, 'text_delta')
        .map((e) => e.delta.text)
        .join(''),
    ).toBe('This answer stops half way');

    server.enqueue({ kind: 'truncated' });
    const err = await rejection(client.messages.stream(params()).finalMessage());
    expect(err).toBeInstanceOf(Anthropic.AnthropicError);
    expect(err).not.toBeInstanceOf(Anthropic.APIError);
    expect(err.message).toBe('stream ended without producing a Message with role=assistant');
  });

  // Observed: an `event: error` becomes an APIError with no HTTP status (the response was a 200) and the
  // error's type from the event body.
  test('error event mid-stream → APIError with type overloaded_error', async () => {
    server.enqueue({ kind: 'error_event', afterEvents: 4 });
    const events: RawMessageStreamEvent[] = [];
    const err = await rejection(
      (async () => {
        for await (const e of await client.messages.create(params())) events.push(e);
      })(),
    );
    expect(events.length).toBe(3); // the ping is not yielded
    expect(err).toBeInstanceOf(Anthropic.APIError);
    expect(err.status).toBeUndefined();
    expect(err.type).toBe('overloaded_error');
    expect(err.error).toEqual({ type: 'error', error: { type: 'overloaded_error', message: 'Overloaded' } });

    server.enqueue({ kind: 'error_event', afterEvents: 2, errorType: 'api_error', message: 'Internal server error' });
    const helperErr = await rejection(client.messages.stream(params()).finalMessage());
    expect(helperErr).toBeInstanceOf(Anthropic.APIError);
    expect(helperErr.type).toBe('api_error');
  });

  // Observed: the SDK's partial-JSON parser returns what it can of an incomplete object, and throws on
  // text that is not JSON at all (which fails messages.stream()).
  test('rawJson streams invalid tool input JSON', async () => {
    server.enqueue({ kind: 'stream', toolCalls: [{ name: 'read', input: null, rawJson: '{"path": "/a", "li' }] });
    const partial = await client.messages.stream(params()).finalMessage();
    expect(partial.content[0]).toMatchObject({ type: 'tool_use', input: { path: '/a' } });

    server.enqueue({ kind: 'stream', toolCalls: [{ name: 'read', input: null, rawJson: 'not json' }] });
    const err = await rejection(client.messages.stream(params()).finalMessage());
    expect(err).toBeInstanceOf(Anthropic.AnthropicError);
    expect(err.message).toMatch(/JSON/);
  });

  test('prompt caching: the second request with the same cached prefix reads it', async () => {
    const system: Anthropic.TextBlockParam[] = [{ type: 'text', text: 'You are a careful assistant. '.repeat(50), cache_control: { type: 'ephemeral' } }];
    const usageOf = async (messages: MessageParam[]) => {
      server.enqueue({ kind: 'stream', text: 'ok' });
      const message = await client.messages.stream({ ...params(), system, messages, model: 'claude-haiku-4-5' }).finalMessage();
      return message.usage;
    };
    const first = await usageOf([{ role: 'user', content: 'question one' }]);
    expect(first.cache_read_input_tokens).toBe(0);
    expect(first.cache_creation_input_tokens).toBeGreaterThan(300);
    const second = await usageOf([{ role: 'user', content: 'question two' }]);
    expect(second.cache_read_input_tokens).toBe(first.cache_creation_input_tokens);
    expect(second.cache_creation_input_tokens).toBe(0);
    expect(second.input_tokens).toBeLessThan(20); // only what follows the breakpoint

    // A growing conversation with the breakpoint on its last block reads the earlier prefix (lookback).
    const turn1: MessageParam[] = [{ role: 'user', content: [{ type: 'text', text: 'long question '.repeat(40), cache_control: { type: 'ephemeral' } }] }];
    const a = await usageOf(turn1);
    const turn2: MessageParam[] = [
      { role: 'user', content: [{ type: 'text', text: 'long question '.repeat(40) }] },
      { role: 'assistant', content: 'an answer' },
      { role: 'user', content: [{ type: 'text', text: 'follow up', cache_control: { type: 'ephemeral' } }] },
    ];
    const b = await usageOf(turn2);
    expect(b.cache_read_input_tokens).toBe(a.cache_read_input_tokens! + a.cache_creation_input_tokens!);
    expect(b.cache_creation_input_tokens).toBeGreaterThan(0);
    expect(b.input_tokens).toBe(0);
  });

  test('scripted stop reason, usage and chunk delay', async () => {
    server.enqueue({
      kind: 'stream',
      text: 'cut off by the token li',
      stopReason: 'max_tokens',
      usage: { inputTokens: 1234, outputTokens: 99 },
      chunkDelayMs: 5,
    });
    const message = await client.messages.stream(params()).finalMessage();
    expect(message.stop_reason).toBe('max_tokens');
    expect(message.usage).toMatchObject({ input_tokens: 1234, output_tokens: 99 });
    expect(message.content).toEqual([{ type: 'text', text: 'cut off by the token li' }]);
  });

  test('script ran out → 500 api_error', async () => {
    const err = await rejection(client.messages.create(params()));
    expect(err).toBeInstanceOf(Anthropic.InternalServerError);
    expect(err.status).toBe(500);
    expect(err.type).toBe('api_error');
    expect(err.apiMessage).toMatch(/script ran out/);
  });

  test('respond() answers when the queue is empty, and sees the request', async () => {
    server.respond = (request) => ({ kind: 'stream', text: `echo: ${request.body.messages[0].content}` });
    try {
      const message = await client.messages.stream(params({ messages: [{ role: 'user', content: 'ping' }] })).finalMessage();
      expect(message.content).toEqual([{ type: 'text', text: 'echo: ping' }]);
    } finally {
      server.respond = undefined;
    }
  });
});

test('hang: close() ends the hanging response and resolves promptly', async () => {
  const own = await startFakeAnthropicServer({ apiKey: 'sk-ant-other' });
  const c = new Anthropic({ baseURL: own.url, apiKey: 'sk-ant-other', maxRetries: 0 });
  own.enqueue({ kind: 'hang' });
  const stream = await c.messages.create(params()); // headers arrived
  const iteration = rejection(
    (async () => {
      for await (const _ of stream) {
        /* nothing ever arrives */
      }
    })(),
  );
  await own.close(); // resolves although a response hangs (a hang would fail the test by its timeout)
  const err = await iteration;
  expect(err.message).toBe('terminated');
});

test('close() during a slow stream ends it and leaves no timer behind', async () => {
  const own = await startFakeAnthropicServer();
  const c = new Anthropic({ baseURL: own.url, apiKey: own.apiKey, maxRetries: 0 });
  own.enqueue({ kind: 'stream', text: 'x'.repeat(200), chunkDelayMs: 60_000 });
  const stream = await c.messages.create(params());
  const iteration = rejection(
    (async () => {
      for await (const _ of stream) {
        /* the first events arrive, then the server closes */
      }
    })(),
  );
  await own.close();
  expect((await iteration).message).toBe('terminated');
});
