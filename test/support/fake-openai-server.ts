/**
 * A local HTTP server that speaks OpenAI's Chat Completions wire protocol (streaming only), for tests that
 * drive the real `openai` SDK over real HTTP:
 *
 *   const server = await startFakeOpenAIServer();
 *   const client = new OpenAI({ baseURL: server.url + '/v1', apiKey: server.apiKey, maxRetries: 0 });
 *   server.enqueue({ kind: 'stream', text: 'Hello there' });
 *
 * Requests are validated the way the real service does (fake-openai-validate.ts), so a malformed history
 * fails here exactly as it would in production; each valid request then consumes one scripted response.
 * Besides normal streams the script can produce the failure modes a provider adapter must survive: HTTP
 * errors, a connection cut mid-stream, a stream that ends cleanly but without a finish_reason, an SSE error
 * event, and a stall.
 *
 * Only node builtins are used, so the fake cannot drift with a mocking library's idea of the protocol.
 */
import http from 'node:http';
import type { AddressInfo } from 'node:net';
import { randomBytes, randomInt } from 'node:crypto';
import { INVALID_IMAGE_ERROR, type OpenAIErrorObject, validateChatCompletionRequest } from './fake-openai-validate';

export { KNOWN_CHAT_COMPLETION_KEYS, unknownRequestKeys, type OpenAIErrorObject } from './fake-openai-validate';

export type FakeOpenAIResponse =
  | {
      kind: 'stream';
      text?: string;
      toolCalls?: Array<{ id?: string; name: string; arguments: string }>;
      /** Default: 'tool_calls' if toolCalls else 'stop'. */
      finishReason?: 'stop' | 'tool_calls' | 'length' | 'content_filter';
      /** Defaults: prompt ≈ ceil(bytes of JSON messages / 4), completion ≈ ceil(bytes of output / 4). */
      usage?: { promptTokens?: number; completionTokens?: number };
      /** Sent as the usage chunk's `usage` exactly (what some OpenAI-compatible servers send: fields missing, fractions). */
      rawUsage?: Record<string, unknown>;
      /** Delay between SSE chunks (default 0). */
      chunkDelayMs?: number;
    }
  /** HTTP error; the default body is the real OpenAI error shape for that status. */
  | { kind: 'error'; status: number; body?: unknown; headers?: Record<string, string> }
  /** Stream `afterChunks` text chunks, then destroy the socket (connection cut mid-stream). */
  | { kind: 'cut'; afterChunks: number; text?: string }
  /** Stream the text chunks, then end the response cleanly with no finish_reason and no [DONE]. */
  | { kind: 'truncated'; text?: string }
  /** Stream `afterChunks` text chunks, then an SSE `data: {"error": {...}}` line, as OpenAI does for mid-stream server errors. */
  | { kind: 'error_event'; afterChunks: number; text?: string; message?: string }
  /** Send 200 and the SSE headers, then nothing ever (stall / first-token timeouts). Does not block close(). */
  | { kind: 'hang' };

export interface RecordedOpenAIRequest {
  method: string;
  path: string;
  headers: Record<string, string | string[] | undefined>;
  /** Parsed JSON body; the raw text if it was not JSON; undefined if empty. */
  // eslint-disable-next-line @typescript-eslint/no-explicit-any
  body: any;
  /** The body's text as it came (the bytes a request fingerprint hashes). */
  raw: string;
}

export interface FakeOpenAIServer {
  /** http://127.0.0.1:<port> */
  url: string;
  /** Every request received, in order (also the ones answered with 400/401/404). */
  requests: RecordedOpenAIRequest[];
  /** Responses consumed in order, one per VALID request; when empty, `respond` is used; when both are absent → 500 saying the script ran out. */
  enqueue(...responses: FakeOpenAIResponse[]): void;
  respond?: (request: RecordedOpenAIRequest) => FakeOpenAIResponse;
  /** An image (its bytes) the service should fail to decode: answered 400 invalid_image_format, as OpenAI does. */
  refuseImage?: (bytes: Buffer) => boolean;
  /** The only accepted key (Authorization: Bearer <apiKey>). */
  apiKey: string;
  close(): Promise<void>;
}

const ROUTES = ['/v1/chat/completions', '/chat/completions'];
const DEFAULT_PARTIAL_TEXT = 'This answer stops part way through because the stream is interrupted here';
const ALNUM = 'ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789';

const randomAlnum = (n: number) => Array.from({ length: n }, () => ALNUM[randomInt(ALNUM.length)]).join('');
/** The prompt/completion token estimate used throughout: a quarter of the UTF-8 byte count, rounded up. */
const estimateTokens = (text: string) => Math.ceil(Buffer.byteLength(text) / 4);
const apiError = (message: string, type: string, code: string | null = null, param: string | null = null): OpenAIErrorObject => ({
  message,
  type,
  param,
  code,
});

/** Split text the way streamed tokens arrive: each piece is a word with its leading whitespace; pieces concatenate back exactly. */
export function splitTextIntoChunks(text: string): string[] {
  return text.match(/\s*\S+|\s+$/g) ?? [];
}

/** Split tool-call arguments into small fragments (by code point, so no surrogate pair is torn apart). */
function splitArguments(args: string): string[] {
  const chars = Array.from(args);
  const out: string[] = [];
  for (let i = 0; i < chars.length; i += 6) out.push(chars.slice(i, i + 6).join(''));
  return out;
}

/** Mask a key the way the real 401 message does: the first 5 and last 3 characters survive. */
function maskKey(key: string): string {
  return key.length <= 8 ? '****' : `${key.slice(0, 5)}****${key.slice(-3)}`;
}

/** The body OpenAI sends for an HTTP error status, used when a scripted error gives none. */
export function defaultErrorBody(status: number, model = 'gpt-4o'): { error: OpenAIErrorObject } {
  switch (status) {
    case 400:
      return { error: apiError('Bad request.', 'invalid_request_error') };
    case 401:
      return { error: apiError(incorrectKeyMessage('sk-test-fake'), 'invalid_request_error', 'invalid_api_key') };
    case 403:
      return { error: apiError(`Project does not have access to model \`${model}\``, 'invalid_request_error', 'model_not_found') };
    case 404:
      return { error: apiError(`The model \`${model}\` does not exist or you do not have access to it.`, 'invalid_request_error', 'model_not_found') };
    case 429:
      return {
        error: apiError(
          `Rate limit reached for ${model} in organization org-fake on requests per min (RPM): Limit 3, Used 3, Requested 1. ` +
            'Please try again in 20s. Visit https://platform.openai.com/account/rate-limits to learn more.',
          'requests',
          'rate_limit_exceeded',
        ),
      };
    case 503:
      return { error: apiError('The server is overloaded or not ready yet.', 'server_error') };
    default:
      return status >= 500
        ? { error: apiError('The server had an error while processing your request. Sorry about that!', 'server_error') }
        : { error: apiError(`Request failed with status ${status}.`, 'invalid_request_error') };
  }
}

function incorrectKeyMessage(key: string): string {
  return `Incorrect API key provided: ${maskKey(key)}. You can find your API key at https://platform.openai.com/account/api-keys.`;
}

function sendJson(res: http.ServerResponse, status: number, body: unknown, headers: Record<string, string> = {}): void {
  if (res.headersSent || res.destroyed) return;
  res.writeHead(status, { 'content-type': 'application/json', ...headers });
  res.end(typeof body === 'string' ? body : JSON.stringify(body));
}

function readBody(req: http.IncomingMessage): Promise<string> {
  return new Promise((resolve, reject) => {
    const parts: Buffer[] = [];
    req.on('data', (c: Buffer) => parts.push(c));
    req.on('end', () => resolve(Buffer.concat(parts).toString('utf8')));
    req.on('error', reject);
  });
}

export async function startFakeOpenAIServer(options: { apiKey?: string } = {}): Promise<FakeOpenAIServer> {
  const apiKey = options.apiKey ?? 'sk-test-fake';
  const queue: FakeOpenAIResponse[] = [];
  /** Prompts already processed, per model, as lists of message JSON: the "cache" for cached_tokens. */
  const promptHistory: Array<{ model: string; messages: string[] }> = [];
  /** Pending chunk delays; close() releases them so no handler is left waiting on a dead timer. */
  const sleepers = new Map<NodeJS.Timeout, () => void>();

  const sleep = (ms: number) =>
    new Promise<void>((resolve) => {
      const t = setTimeout(() => {
        sleepers.delete(t);
        resolve();
      }, ms);
      sleepers.set(t, resolve);
    });

  /**
   * Deterministic stand-in for OpenAI's automatic prompt caching: the prompt-token estimate of the longest
   * prefix of whole messages (compared by JSON) shared with an earlier processed request for the same model.
   * The real service only caches prefixes of >= 1024 tokens, in 128-token steps; this fake uses no minimum
   * and no rounding so that small test conversations see caching.
   */
  function cachedTokens(model: string, messages: unknown[]): number {
    const current = messages.map((m) => JSON.stringify(m));
    let best = 0;
    for (const earlier of promptHistory) {
      if (earlier.model !== model) continue;
      let k = 0;
      while (k < current.length && k < earlier.messages.length && current[k] === earlier.messages[k]) k++;
      best = Math.max(best, k);
    }
    return best === 0 ? 0 : estimateTokens(JSON.stringify(messages.slice(0, best)));
  }

  const server = http.createServer((req, res) => {
    res.on('error', () => {}); // a client that hangs up mid-write is expected, not a test failure
    handle(req, res).catch((err: unknown) => {
      if (!res.headersSent) {
        sendJson(res, 500, { error: apiError(`Fake OpenAI server failed: ${String(err)}`, 'server_error') });
      } else {
        res.destroy();
      }
    });
  });

  async function handle(req: http.IncomingMessage, res: http.ServerResponse): Promise<void> {
    // Every real response carries a request id; the SDK exposes it as `error.requestID` / `_request_id`.
    res.setHeader('x-request-id', `req_${randomBytes(16).toString('hex')}`);
    res.setHeader('openai-version', '2020-10-01');
    res.setHeader('openai-processing-ms', '1');

    const raw = await readBody(req);
    const path = new URL(req.url ?? '/', 'http://localhost').pathname;
    let body: unknown = raw.length === 0 ? undefined : raw;
    let parsed = raw.length === 0;
    try {
      if (raw.length > 0) [body, parsed] = [JSON.parse(raw), true];
    } catch {
      // keep the raw text in the record; answered with 400 below
    }
    const request: RecordedOpenAIRequest = { method: req.method ?? '', path, headers: { ...req.headers }, body, raw };
    fake.requests.push(request);

    if (req.method !== 'POST' || !ROUTES.includes(path)) {
      return sendJson(res, 404, { error: apiError(`Invalid URL (${req.method} ${path})`, 'invalid_request_error') });
    }

    const auth = req.headers.authorization;
    const presented = typeof auth === 'string' ? /^Bearer\s+(.*)$/i.exec(auth)?.[1]?.trim() : undefined;
    if (!presented) {
      const message =
        "You didn't provide an API key. You need to provide your API key in an Authorization header using Bearer auth " +
        '(i.e. Authorization: Bearer YOUR_KEY). You can obtain an API key from https://platform.openai.com/account/api-keys.';
      return sendJson(res, 401, { error: apiError(message, 'invalid_request_error') });
    }
    if (presented !== apiKey) {
      return sendJson(res, 401, { error: apiError(incorrectKeyMessage(presented), 'invalid_request_error', 'invalid_api_key') });
    }

    if (!parsed) {
      const message =
        "We could not parse the JSON body of your request. (HINT: This likely means you aren't using your HTTP library correctly. " +
        'The OpenAI API expects a JSON payload, but what was sent was not valid JSON.)';
      return sendJson(res, 400, { error: apiError(message, 'invalid_request_error') });
    }
    const invalid = validateChatCompletionRequest(body ?? {});
    if (invalid) return sendJson(res, 400, { error: invalid });
    if (fake.refuseImage && sentImages(body).some((bytes) => fake.refuseImage!(bytes))) return sendJson(res, 400, { error: INVALID_IMAGE_ERROR });

    let response: FakeOpenAIResponse | undefined = queue.shift();
    if (!response && fake.respond) {
      try {
        response = fake.respond(request);
      } catch (err) {
        return sendJson(res, 500, { error: apiError(`Fake OpenAI server: respond() threw: ${String(err)}`, 'server_error') });
      }
    }
    if (!response) {
      const n = fake.requests.length;
      const message = `Fake OpenAI server: the response script ran out (request #${n}, ${req.method} ${path}); ` + 'enqueue() more responses or set respond.';
      return sendJson(res, 500, { error: apiError(message, 'server_error', 'fake_script_exhausted') });
    }

    const b = body as { model: string; messages: unknown[]; stream_options?: { include_usage?: boolean } | null };
    if (response.kind === 'error') {
      const errorBody = response.body ?? defaultErrorBody(response.status, b.model);
      return sendJson(res, response.status, errorBody, response.headers);
    }

    // Every non-error response means the model "read" the prompt: compute its cache hit, then remember it.
    const promptTokens = estimateTokens(JSON.stringify(b.messages));
    const cached = cachedTokens(b.model, b.messages);
    promptHistory.push({ model: b.model, messages: b.messages.map((m) => JSON.stringify(m)) });
    await play(res, response, { model: b.model, includeUsage: b.stream_options?.include_usage === true, promptTokens, cached });
  }

  async function play(
    res: http.ServerResponse,
    response: Exclude<FakeOpenAIResponse, { kind: 'error' }>,
    ctx: { model: string; includeUsage: boolean; promptTokens: number; cached: number },
  ): Promise<void> {
    res.writeHead(200, { 'content-type': 'text/event-stream; charset=utf-8', 'cache-control': 'no-cache' });
    res.flushHeaders();
    if (response.kind === 'hang') return; // close() destroys the socket; nothing else keeps the server alive

    const id = `chatcmpl-${randomAlnum(29)}`;
    const created = Math.floor(Date.now() / 1000);
    const delayMs = response.kind === 'stream' ? (response.chunkDelayMs ?? 0) : 0;
    let sent = 0;
    /** Writes one SSE event; false once the client is gone (or close() ran), so playback stops. */
    const send = async (data: unknown): Promise<boolean> => {
      if (sent++ > 0 && delayMs > 0) await sleep(delayMs);
      if (res.destroyed || res.writableEnded) return false;
      const line = `data: ${typeof data === 'string' ? data : JSON.stringify(data)}\n\n`;
      await new Promise<void>((resolve) => res.write(line, () => resolve()));
      return !res.destroyed;
    };
    // Real chunks carry `usage: null` on every content chunk when include_usage is on.
    const chunk = (delta: Record<string, unknown>, finishReason: string | null = null) => ({
      id,
      object: 'chat.completion.chunk',
      created,
      model: ctx.model,
      service_tier: 'default',
      system_fingerprint: 'fp_fake0000',
      choices: [{ index: 0, delta, logprobs: null, finish_reason: finishReason }],
      ...(ctx.includeUsage ? { usage: null } : {}),
    });
    const roleDelta = { role: 'assistant', content: '', refusal: null };

    if (response.kind !== 'stream') {
      // cut / truncated / error_event: the role chunk, then (some of) the text, then the failure.
      const pieces = splitTextIntoChunks(response.text ?? DEFAULT_PARTIAL_TEXT);
      const count = response.kind === 'truncated' ? pieces.length : Math.min(response.afterChunks, pieces.length);
      if (!(await send(chunk(roleDelta)))) return;
      for (const piece of pieces.slice(0, count)) if (!(await send(chunk({ content: piece })))) return;
      if (response.kind === 'cut') {
        res.destroy(); // no terminating chunk: the client sees the connection drop mid-body
      } else if (response.kind === 'truncated') {
        res.end(); // a clean end of the HTTP body, but no finish_reason and no [DONE]
      } else {
        const message = response.message ?? 'The server had an error while processing your request. Sorry about that!';
        if (await send({ error: apiError(message, 'server_error') })) res.end();
      }
      return;
    }

    const text = response.text ?? '';
    const calls = (response.toolCalls ?? []).map((c) => ({ ...c, id: c.id ?? `call_${randomAlnum(24)}` }));
    const startOf = (i: number) => ({
      index: i,
      id: calls[i].id,
      type: 'function',
      function: { name: calls[i].name, arguments: '' },
    });

    // As the real API: a text answer opens with role + empty content; a tool-only answer opens with
    // role, null content and the first call's header in the same chunk.
    const mergeFirstCall = text.length === 0 && calls.length > 0;
    const first = mergeFirstCall ? { role: 'assistant', content: null, tool_calls: [startOf(0)], refusal: null } : roleDelta;
    if (!(await send(chunk(first)))) return;
    for (const piece of splitTextIntoChunks(text)) if (!(await send(chunk({ content: piece })))) return;
    for (let i = 0; i < calls.length; i++) {
      if (!(i === 0 && mergeFirstCall) && !(await send(chunk({ tool_calls: [startOf(i)] })))) return;
      for (const fragment of splitArguments(calls[i].arguments)) {
        if (!(await send(chunk({ tool_calls: [{ index: i, function: { arguments: fragment } }] })))) return;
      }
    }
    const finishReason = response.finishReason ?? (calls.length > 0 ? 'tool_calls' : 'stop');
    if (!(await send(chunk({}, finishReason)))) return;

    if (ctx.includeUsage) {
      const output = text + calls.map((c) => c.name + c.arguments).join('');
      const promptTokens = response.usage?.promptTokens ?? ctx.promptTokens;
      const completionTokens = response.usage?.completionTokens ?? estimateTokens(output);
      const usage = {
        prompt_tokens: promptTokens,
        completion_tokens: completionTokens,
        total_tokens: promptTokens + completionTokens,
        prompt_tokens_details: { cached_tokens: Math.min(ctx.cached, promptTokens), audio_tokens: 0 },
        completion_tokens_details: { reasoning_tokens: 0, audio_tokens: 0, accepted_prediction_tokens: 0, rejected_prediction_tokens: 0 },
      };
      const { choices: _choices, usage: _usage, ...envelope } = chunk({});
      if (!(await send({ ...envelope, choices: [], usage: response.rawUsage ?? usage }))) return;
    }
    if (await send('[DONE]')) res.end();
  }

  let closing: Promise<void> | undefined;
  const fake: FakeOpenAIServer = {
    url: '',
    requests: [],
    enqueue: (...responses) => void queue.push(...responses),
    respond: undefined,
    apiKey,
    close: () => {
      closing ??= new Promise<void>((resolve, reject) => {
        server.close((err) => (err ? reject(err) : resolve()));
        server.closeAllConnections(); // including hung and delayed streams
        for (const [t, wake] of sleepers) {
          clearTimeout(t);
          wake(); // the woken handler finds its response destroyed and stops
        }
        sleepers.clear();
      });
      return closing;
    },
  };

  await new Promise<void>((resolve, reject) => {
    server.once('error', reject);
    server.listen(0, '127.0.0.1', () => resolve());
  });
  fake.url = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
  return fake;
}

/** The bytes of every base64 image in a (valid) request's messages. */
function sentImages(body: unknown): Buffer[] {
  const messages = ((body as { messages?: unknown[] })?.messages ?? []) as Array<{ content?: unknown }>;
  return messages.flatMap((m) =>
    Array.isArray(m.content)
      ? (m.content as Array<{ type?: string; image_url?: { url?: string } }>).flatMap((part) => {
          const data = part.type === 'image_url' ? /^data:[^;,]*;base64,(.*)$/s.exec(part.image_url?.url ?? '')?.[1] : undefined;
          return data ? [Buffer.from(data, 'base64')] : [];
        })
      : [],
  );
}
