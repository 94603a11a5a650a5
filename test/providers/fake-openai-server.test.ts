/**
 * The fake OpenAI server, exercised through the real `openai` SDK over real HTTP: what the SDK sees here is
 * what a provider adapter built on it will see, including how each failure mode surfaces.
 */
import OpenAI from 'openai';
import type { ChatCompletionChunk, ChatCompletionMessageParam } from 'openai/resources/chat/completions';
import { type FakeOpenAIServer, startFakeOpenAIServer, unknownRequestKeys } from '../support/fake-openai-server';

let server: FakeOpenAIServer;
let client: OpenAI;

beforeEach(async () => {
  server = await startFakeOpenAIServer();
  client = new OpenAI({ baseURL: server.url + '/v1', apiKey: server.apiKey, maxRetries: 0 });
});
afterEach(async () => {
  await server.close();
});

const USER: ChatCompletionMessageParam[] = [{ role: 'user', content: 'Say hello.' }];

function stream(messages: ChatCompletionMessageParam[], extra: Partial<OpenAI.ChatCompletionCreateParamsStreaming> = {}) {
  return client.chat.completions.create({
    model: 'gpt-4o-mini',
    messages,
    stream: true,
    stream_options: { include_usage: true },
    ...extra,
  });
}

/** Drains a stream; `error` is what the iteration threw, if anything (chunks seen before it are kept). */
async function collect(messages: ChatCompletionMessageParam[], extra: Partial<OpenAI.ChatCompletionCreateParamsStreaming> = {}) {
  const chunks: ChatCompletionChunk[] = [];
  let error: unknown;
  try {
    for await (const c of await stream(messages, extra)) chunks.push(c);
  } catch (e) {
    error = e;
  }
  const text = chunks.map((c) => c.choices[0]?.delta.content ?? '').join('');
  const finishReasons = chunks.map((c) => c.choices[0]?.finish_reason).filter((r) => r != null);
  const usage = chunks.find((c) => c.usage)?.usage;
  return { chunks, error, text, finishReasons, usage };
}

/** The error the SDK throws from `create` (HTTP errors surface before any iteration). */
async function createError(messages: ChatCompletionMessageParam[]): Promise<InstanceType<typeof OpenAI.APIError>> {
  try {
    await stream(messages);
  } catch (e) {
    expect(e).toBeInstanceOf(OpenAI.APIError);
    return e as InstanceType<typeof OpenAI.APIError>;
  }
  throw new Error('expected create() to throw');
}

test('text streams in several chunks, then finish_reason, usage and [DONE]', async () => {
  server.enqueue({ kind: 'stream', text: 'Hello there, how can I help you today?' });
  const r = await collect(USER);
  expect(r.error).toBeUndefined();
  expect(r.text).toBe('Hello there, how can I help you today?');
  expect(r.chunks.filter((c) => c.choices[0]?.delta.content).length).toBeGreaterThan(3);
  expect(r.chunks[0].choices[0].delta.role).toBe('assistant');
  expect(r.finishReasons).toEqual(['stop']);
  // The usage chunk comes last, with no choices.
  expect(r.chunks[r.chunks.length - 1].choices).toEqual([]);
  expect(r.usage).toMatchObject({ prompt_tokens: expect.any(Number), completion_tokens: 10, prompt_tokens_details: { cached_tokens: 0 } });
  expect(r.usage!.total_tokens).toBe(r.usage!.prompt_tokens + r.usage!.completion_tokens);
  expect(new Set(r.chunks.map((c) => c.id)).size).toBe(1);
  expect(r.chunks[0].id).toMatch(/^chatcmpl-/);

  expect(server.requests).toHaveLength(1);
  expect(server.requests[0]).toMatchObject({ method: 'POST', path: '/v1/chat/completions', body: { model: 'gpt-4o-mini' } });
  expect(server.requests[0].headers.authorization).toBe(`Bearer ${server.apiKey}`);
  expect(unknownRequestKeys(server.requests[0].body)).toEqual([]);
});

test('no usage chunk unless stream_options.include_usage', async () => {
  server.enqueue({ kind: 'stream', text: 'Hi' });
  const r = await collect(USER, { stream_options: undefined });
  expect(r.usage).toBeUndefined();
  expect(r.chunks.every((c) => c.choices.length === 1)).toBe(true);
});

test('two tool calls with fragmented arguments reassemble', async () => {
  const args0 = JSON.stringify({ city: 'Paris', unit: 'celsius' });
  const args1 = JSON.stringify({ query: 'weather forecast for the week', limit: 5 });
  server.enqueue({
    kind: 'stream',
    toolCalls: [
      { id: 'call_given', name: 'get_weather', arguments: args0 },
      { name: 'search', arguments: args1 },
    ],
  });
  const r = await collect(USER, {
    tools: [
      { type: 'function', function: { name: 'get_weather', parameters: { type: 'object', properties: {} } } },
      { type: 'function', function: { name: 'search', description: 'Search the web' } },
    ],
  });
  expect(r.error).toBeUndefined();
  const calls: Array<{ id?: string; name?: string; args: string; fragments: number }> = [];
  for (const c of r.chunks) {
    for (const tc of c.choices[0]?.delta.tool_calls ?? []) {
      calls[tc.index] ??= { args: '', fragments: 0 };
      if (tc.id) Object.assign(calls[tc.index], { id: tc.id, name: tc.function?.name });
      if (tc.function?.arguments) {
        calls[tc.index].args += tc.function.arguments;
        calls[tc.index].fragments++;
      }
    }
  }
  expect(calls).toHaveLength(2);
  expect(calls[0]).toMatchObject({ id: 'call_given', name: 'get_weather', args: args0 });
  expect(calls[1]).toMatchObject({ name: 'search', args: args1 });
  expect(calls[1].id).toMatch(/^call_[A-Za-z0-9]{24}$/);
  expect(calls.every((c) => c.fragments > 2)).toBe(true);
  expect(r.finishReasons).toEqual(['tool_calls']);
  // A tool-only answer opens with role, null content and the first call's header together.
  expect(r.chunks[0].choices[0].delta).toMatchObject({ role: 'assistant', content: null, tool_calls: [{ index: 0, id: 'call_given' }] });
});

test('wrong API key → 401 AuthenticationError with the real message', async () => {
  client = new OpenAI({ baseURL: server.url + '/v1', apiKey: 'sk-wrong-key-123', maxRetries: 0 });
  const err = await createError(USER);
  expect(err).toBeInstanceOf(OpenAI.AuthenticationError);
  expect(err.status).toBe(401);
  expect(err.code).toBe('invalid_api_key');
  expect(err.message).toContain('Incorrect API key provided: sk-wr****123.');
  expect(err.requestID).toMatch(/^req_/);
  expect(server.requests).toHaveLength(1); // recorded even though rejected
});

test('429 with retry-after: the header is visible on the RateLimitError', async () => {
  server.enqueue({ kind: 'error', status: 429, headers: { 'retry-after': '1' } });
  const err = await createError(USER);
  expect(err).toBeInstanceOf(OpenAI.RateLimitError);
  expect(err.status).toBe(429);
  expect(err.headers?.get('retry-after')).toBe('1');
  expect(err.code).toBe('rate_limit_exceeded');
  expect(err.type).toBe('requests');
});

test('500 → InternalServerError with server_error', async () => {
  server.enqueue({ kind: 'error', status: 500 });
  const err = await createError(USER);
  expect(err).toBeInstanceOf(OpenAI.InternalServerError);
  expect(err.status).toBe(500);
  expect(err.type).toBe('server_error');
});

test('assistant tool_calls not followed by tool messages → 400 with the real message', async () => {
  server.enqueue({ kind: 'stream', text: 'never served' });
  const err = await createError([
    { role: 'user', content: 'Weather?' },
    { role: 'assistant', content: null, tool_calls: [{ id: 'call_x', type: 'function', function: { name: 'w', arguments: '{}' } }] },
    { role: 'user', content: 'Well?' },
  ]);
  expect(err).toBeInstanceOf(OpenAI.BadRequestError);
  expect(err.message).toBe(
    "400 An assistant message with 'tool_calls' must be followed by tool messages responding to each 'tool_call_id'. " +
      'The following tool_call_ids did not have response messages: call_x',
  );
  expect(err.param).toBe('messages.[1].role');
  expect(err.type).toBe('invalid_request_error');
  // Invalid requests do not consume the script.
  expect((await collect(USER)).text).toBe('never served');
});

test('a stray tool message → 400', async () => {
  const err = await createError([
    { role: 'user', content: 'Hi' },
    { role: 'tool', tool_call_id: 'call_nobody', content: 'result' },
  ]);
  expect(err).toBeInstanceOf(OpenAI.BadRequestError);
  expect(err.message).toBe("400 Invalid parameter: messages with role 'tool' must be a response to a preceeding message with 'tool_calls'.");
  expect(err.param).toBe('messages.[1].role');
});

test('other strict checks: empty messages, bad role, bad tool name, temperature, non-stream', async () => {
  const bad = async (params: Record<string, unknown>) => {
    try {
      await client.chat.completions.create({ model: 'gpt-4o-mini', messages: USER, stream: true, ...params } as never);
    } catch (e) {
      return e as InstanceType<typeof OpenAI.APIError>;
    }
    throw new Error('expected a 400');
  };
  expect((await bad({ messages: [] })).param).toBe('messages');
  expect((await bad({ messages: [{ role: 'robot', content: 'x' }] })).param).toBe('messages[0].role');
  expect((await bad({ tools: [{ type: 'function', function: { name: 'has space' } }] })).param).toBe('tools[0].function.name');
  expect((await bad({ tools: [{ type: 'function', function: { name: 'f', parameters: { type: 'string' } } }] })).code).toBe('invalid_function_parameters');
  expect((await bad({ tool_choice: { type: 'function', function: { name: 'nope' } }, tools: [{ type: 'function', function: { name: 'f' } }] })).param).toBe(
    'tool_choice',
  );
  expect((await bad({ temperature: 3 })).code).toBe('decimal_above_max_value');
  expect((await bad({ stop: ['a', 'b', 'c', 'd', 'e'] })).code).toBe('array_above_max_length');
  expect((await bad({ max_tokens: 0 })).code).toBe('integer_below_min_value');
  expect((await bad({ stream: false })).message).toMatch(/only serves streaming/);
  expect(server.requests).toHaveLength(9);
});

test('cut mid-stream: the SDK iteration THROWS (undici "terminated") after the chunks that arrived', async () => {
  server.enqueue({ kind: 'cut', afterChunks: 3, text: 'one two three four five six' });
  const r = await collect(USER);
  expect(r.text).toBe('one two three');
  expect(r.finishReasons).toEqual([]);
  // Not an OpenAI.APIError: undici's body error propagates raw out of the SDK's iterator. (It is Node's own
  // TypeError, from another realm than jest's sandbox, hence the check by name rather than instanceof.)
  const err = r.error as Error & { cause?: { code?: string } };
  expect(err.name).toBe('TypeError');
  expect(err.message).toBe('terminated');
  expect(err.cause?.code).toBe('UND_ERR_SOCKET');
  expect(r.error).not.toBeInstanceOf(OpenAI.APIError);
});

test('truncated: the SDK ends iteration WITHOUT error and no finish_reason was seen', async () => {
  server.enqueue({ kind: 'truncated', text: 'a partial answer' });
  const r = await collect(USER);
  expect(r.error).toBeUndefined();
  expect(r.text).toBe('a partial answer');
  expect(r.finishReasons).toEqual([]);
  expect(r.usage).toBeUndefined();
});

test('error_event mid-stream: the SDK throws APIError (no status) from the iteration', async () => {
  server.enqueue({ kind: 'error_event', afterChunks: 2, text: 'alpha beta gamma', message: 'Upstream overloaded' });
  const r = await collect(USER);
  expect(r.text).toBe('alpha beta');
  expect(r.error).toBeInstanceOf(OpenAI.APIError);
  const err = r.error as InstanceType<typeof OpenAI.APIError>;
  expect(err.status).toBeUndefined();
  expect(err.message).toBe('Upstream overloaded');
  expect(err.type).toBe('server_error');
});

test('cached_tokens > 0 on a second request sharing a prefix (same model only)', async () => {
  const history: ChatCompletionMessageParam[] = [
    { role: 'system', content: 'You are a careful assistant. '.repeat(20) },
    { role: 'user', content: 'First question?' },
  ];
  server.respond = () => ({ kind: 'stream', text: 'ok' });
  const first = await collect(history);
  expect(first.usage?.prompt_tokens_details?.cached_tokens).toBe(0);
  const second = await collect([...history, { role: 'assistant', content: 'ok' }, { role: 'user', content: 'Second?' }]);
  const expected = Math.ceil(Buffer.byteLength(JSON.stringify(history)) / 4);
  expect(second.usage?.prompt_tokens_details?.cached_tokens).toBe(expected);
  expect(second.usage!.prompt_tokens).toBeGreaterThan(expected);
  const otherModel = await collect(history, { model: 'gpt-4o' });
  expect(otherModel.usage?.prompt_tokens_details?.cached_tokens).toBe(0);
});

test('scripted usage and finish reason are honoured; chunkDelayMs spaces the chunks', async () => {
  server.enqueue({ kind: 'stream', text: 'a b c', finishReason: 'length', usage: { promptTokens: 7, completionTokens: 3 }, chunkDelayMs: 20 });
  const started = Date.now();
  const r = await collect(USER);
  expect(Date.now() - started).toBeGreaterThanOrEqual(100);
  expect(r.finishReasons).toEqual(['length']);
  expect(r.usage).toMatchObject({ prompt_tokens: 7, completion_tokens: 3, total_tokens: 10 });
});

test('the script ran out → 500 saying so', async () => {
  const err = await createError(USER);
  expect(err).toBeInstanceOf(OpenAI.InternalServerError);
  expect(err.message).toMatch(/script ran out/);
});

test('hang: headers arrive, no chunk ever does, and close() still completes', async () => {
  server.enqueue({ kind: 'hang' });
  const s = await stream(USER); // resolves: status and headers were sent
  const iterator = s[Symbol.asyncIterator]();
  const next = iterator.next();
  const winner = await Promise.race([next.then(() => 'chunk'), new Promise((r) => setTimeout(() => r('stalled'), 200))]);
  expect(winner).toBe('stalled');
  await server.close();
  await expect(next).rejects.toThrow(); // the socket was destroyed under the pending read
});

test('unknown routes → 404 in OpenAI error shape', async () => {
  const res = await fetch(server.url + '/v1/models', { headers: { authorization: `Bearer ${server.apiKey}` } });
  expect(res.status).toBe(404);
  expect(res.headers.get('x-request-id')).toMatch(/^req_/);
  expect(await res.json()).toEqual({ error: { message: 'Invalid URL (GET /v1/models)', type: 'invalid_request_error', param: null, code: null } });
});
