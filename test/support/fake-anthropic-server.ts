/**
 * A local HTTP server that speaks the Anthropic Messages API wire protocol (POST /v1/messages, streaming
 * only), for tests that drive the official `@anthropic-ai/sdk` over real HTTP:
 *
 *   const server = await startFakeAnthropicServer();
 *   const client = new Anthropic({ baseURL: server.url, apiKey: server.apiKey, maxRetries: 0 });
 *   server.enqueue({ kind: 'stream', text: 'hi' });
 *
 * It is strict on purpose: requests are validated like the real API does (see fake-anthropic-validate.ts),
 * so a malformed request fails here with the real 400 message instead of passing against a lenient mock.
 * Responses are scripted: one queued FakeAnthropicResponse per valid request, or `respond` when the
 * queue is empty. Invalid requests get their error without consuming the script.
 *
 * Token accounting (deterministic, so tests can assert on it):
 * - The prompt is cut into segments: one per tool, system block and message block, in the API's cache
 *   order tools → system → messages, each serialized as canonical JSON (sorted keys, cache_control left
 *   out so that moving a breakpoint does not change the text before it). Tokens = ceil(UTF-8 bytes / 4).
 * - Prompt caching: each cache_control breakpoint marks the prefix ending at its block. The server
 *   remembers, per model, every breakpoint prefix it has seen. For a new request it looks, at each
 *   breakpoint and up to 20 blocks before it (as the real API does), for the longest remembered prefix:
 *   its tokens are `cache_read_input_tokens`. The tokens from there up to the last breakpoint are
 *   `cache_creation_input_tokens`, and the rest (after the last breakpoint) are `input_tokens`. There is
 *   no minimum cacheable length and no expiry, unlike the real service.
 * - Output tokens = ceil(bytes of streamed text, thinking and tool-input JSON / 4), at least 1.
 * `usage.inputTokens` / `usage.outputTokens` in a scripted response override input_tokens / output_tokens.
 */
import { createHash, randomInt } from 'node:crypto';
import http from 'node:http';
import type { AddressInfo } from 'node:net';
import { setTimeout as delay } from 'node:timers/promises';
import { InvalidRequestError, validateMessagesRequest, type ValidatedRequest } from './fake-anthropic-validate';

export type FakeAnthropicResponse =
  | {
      kind: 'stream';
      text?: string;
      /** Streamed as the first block when given; signature defaults to 'sig-' + random. */
      thinking?: { text: string; signature?: string };
      /** rawJson replaces the streamed partial_json text (to stream invalid JSON). */
      toolCalls?: Array<{ id?: string; name: string; input: unknown; rawJson?: string }>;
      /** Default: 'tool_use' if toolCalls else 'end_turn'. */
      stopReason?: 'end_turn' | 'tool_use' | 'max_tokens' | 'stop_sequence';
      /** Defaults are computed from bytes / 4 (see the file comment). */
      usage?: { inputTokens?: number; outputTokens?: number };
      chunkDelayMs?: number;
    }
  /** Default body: the real Anthropic error shape for that status (529 → overloaded_error). */
  | { kind: 'error'; status: number; body?: unknown; headers?: Record<string, string> }
  /** Sends `afterEvents` SSE events of a text stream, then destroys the socket. */
  | { kind: 'cut'; afterEvents: number; text?: string }
  /** message_start and text deltas, then a clean end of the response with no message_delta/message_stop. */
  | { kind: 'truncated'; text?: string }
  /** `afterEvents` events of a text stream, then `event: error` (default overloaded_error / "Overloaded"). */
  | { kind: 'error_event'; afterEvents: number; text?: string; errorType?: string; message?: string }
  /** Headers, then nothing; close() still ends it. */
  | { kind: 'hang' };

export interface RecordedAnthropicRequest {
  method: string;
  path: string;
  headers: Record<string, string | string[] | undefined>;
  body: any; // eslint-disable-line @typescript-eslint/no-explicit-any -- whatever JSON the client sent
  /** The body's text as it came (the bytes a request fingerprint hashes). */
  raw: string;
}

export interface FakeAnthropicServer {
  url: string;
  /** Every request, in order (including rejected ones). */
  requests: RecordedAnthropicRequest[];
  /** Consumed in order, one per VALID request; when empty, `respond` is used; if both absent → 500 api_error. */
  enqueue(...responses: FakeAnthropicResponse[]): void;
  respond?: (request: RecordedAnthropicRequest) => FakeAnthropicResponse;
  /** An image (its bytes) the service should fail to process: answered 400 "…: Could not process image", as Anthropic does. */
  refuseImage?: (bytes: Buffer) => boolean;
  /** The only accepted API key (as `x-api-key`, or `Authorization: Bearer`, which the SDK sends). */
  apiKey: string;
  close(): Promise<void>;
}

const ERROR_TYPES: Record<number, [type: string, message: string]> = {
  400: ['invalid_request_error', 'Invalid request'],
  401: ['authentication_error', 'invalid x-api-key'],
  403: ['permission_error', 'Your API key does not have permission to use the specified resource.'],
  404: ['not_found_error', 'Not Found'],
  413: ['request_too_large', 'Request exceeds the maximum allowed number of bytes.'],
  429: ['rate_limit_error', 'Number of request tokens has exceeded your per-minute rate limit'],
  500: ['api_error', 'Internal server error'],
  529: ['overloaded_error', 'Overloaded'],
};
const MAX_BODY_BYTES = 32 * 1024 * 1024; // the real Messages API limit
const CACHE_LOOKBACK_BLOCKS = 20;
const PING_EVERY = 10; // a ping after message_start and then every 10 events: "periodic" but deterministic
const ALNUM = 'ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789';

function randomId(prefix: string, length = 24): string {
  let s = prefix;
  for (let i = 0; i < length; i++) s += ALNUM[randomInt(ALNUM.length)];
  return s;
}

const tokens = (bytes: number) => Math.ceil(bytes / 4);

function errorBody(status: number, message?: string): { type: 'error'; error: { type: string; message: string } } {
  const [type, fallback] = ERROR_TYPES[status] ?? (status >= 500 ? ERROR_TYPES[500] : ERROR_TYPES[400]);
  return { type: 'error', error: { type, message: message ?? fallback } };
}

/** Splits into 2–N pieces of at most `max` code points (never inside a surrogate pair), so clients see
 * several deltas, as from the real API. */
function pieces(s: string, max = 16): string[] {
  const chars = Array.from(s);
  const size = Math.max(1, Math.min(max, Math.ceil(chars.length / 3)));
  const out: string[] = [];
  for (let i = 0; i < chars.length; i += size) out.push(chars.slice(i, i + size).join(''));
  return out;
}

interface SseEvent {
  event: string;
  data: unknown;
}

interface Usage {
  input_tokens: number;
  cache_creation_input_tokens: number;
  cache_read_input_tokens: number;
}

/** The SSE events of a complete message, exactly in the real API's order and shapes. */
function messageEvents(r: Extract<FakeAnthropicResponse, { kind: 'stream' }>, model: string, usage: Usage, stopSequence: string | null): SseEvent[] {
  const body: SseEvent[] = [];
  let index = 0;
  let outBytes = 0;
  const block = (start: object, deltas: object[]) => {
    body.push({ event: 'content_block_start', data: { type: 'content_block_start', index, content_block: start } });
    for (const delta of deltas) body.push({ event: 'content_block_delta', data: { type: 'content_block_delta', index, delta } });
    body.push({ event: 'content_block_stop', data: { type: 'content_block_stop', index } });
    index++;
  };
  if (r.thinking) {
    outBytes += Buffer.byteLength(r.thinking.text);
    block({ type: 'thinking', thinking: '', signature: '' }, [
      ...pieces(r.thinking.text).map((thinking) => ({ type: 'thinking_delta', thinking })),
      { type: 'signature_delta', signature: r.thinking.signature ?? randomId('sig-', 32) },
    ]);
  }
  if (r.text !== undefined && r.text !== '') {
    outBytes += Buffer.byteLength(r.text);
    block(
      { type: 'text', text: '' },
      pieces(r.text).map((text) => ({ type: 'text_delta', text })),
    );
  }
  for (const call of r.toolCalls ?? []) {
    const json = call.rawJson ?? JSON.stringify(call.input);
    outBytes += Buffer.byteLength(json);
    // The real API opens with an empty fragment, then sends the JSON in small pieces.
    const fragments = ['', ...pieces(json, 12)].map((partial_json) => ({ type: 'input_json_delta', partial_json }));
    block({ type: 'tool_use', id: call.id ?? randomId('toolu_'), name: call.name, input: {} }, fragments);
  }
  const stopReason = r.stopReason ?? (r.toolCalls?.length ? 'tool_use' : 'end_turn');
  body.push({
    event: 'message_delta',
    data: {
      type: 'message_delta',
      delta: { stop_reason: stopReason, stop_sequence: stopReason === 'stop_sequence' ? stopSequence : null },
      usage: { output_tokens: r.usage?.outputTokens ?? Math.max(1, tokens(outBytes)) },
    },
  });
  body.push({ event: 'message_stop', data: { type: 'message_stop' } });
  return withStartAndPings(model, usage, r.usage?.inputTokens, body);
}

function withStartAndPings(model: string, usage: Usage, inputOverride: number | undefined, body: SseEvent[]): SseEvent[] {
  const start: SseEvent = {
    event: 'message_start',
    data: {
      type: 'message_start',
      message: {
        id: randomId('msg_'),
        type: 'message',
        role: 'assistant',
        model,
        content: [],
        stop_reason: null,
        stop_sequence: null,
        usage: {
          input_tokens: inputOverride ?? usage.input_tokens,
          cache_creation_input_tokens: usage.cache_creation_input_tokens,
          cache_read_input_tokens: usage.cache_read_input_tokens,
          cache_creation: { ephemeral_5m_input_tokens: usage.cache_creation_input_tokens, ephemeral_1h_input_tokens: 0 },
          output_tokens: 1,
          service_tier: 'standard',
        },
      },
    },
  };
  const out: SseEvent[] = [start];
  body.forEach((e, i) => {
    if (i % PING_EVERY === 0 && e.event !== 'message_stop') out.push({ event: 'ping', data: { type: 'ping' } });
    out.push(e);
  });
  return out;
}

const sse = (e: SseEvent) => `event: ${e.event}\ndata: ${JSON.stringify(e.data)}\n\n`;

export async function startFakeAnthropicServer(options: { apiKey?: string } = {}): Promise<FakeAnthropicServer> {
  const queue: FakeAnthropicResponse[] = [];
  /** Remembered cache prefixes: sha256(model, prefix text). */
  const cache = new Set<string>();
  // Aborted by close(): ends pending chunk delays so no timer outlives the server.
  const closing = new AbortController();
  let closed: Promise<void> | undefined;

  const sendError = (res: http.ServerResponse, status: number, body: unknown, headers: Record<string, string> = {}) => {
    const text = typeof body === 'string' ? body : JSON.stringify(body);
    res.writeHead(status, { 'content-type': 'application/json', 'content-length': Buffer.byteLength(text), ...headers });
    res.end(text);
  };

  /** Usage for this request, and remembering its breakpoint prefixes (see the file comment). */
  const cacheUsage = (model: string, v: ValidatedRequest): Usage => {
    const ends: number[] = []; // ends[i] = bytes of segments 0..i
    const keys: string[] = [];
    const hash = createHash('sha256').update(`${model}\0`);
    for (const s of v.segments) {
      ends.push((ends.at(-1) ?? 0) + Buffer.byteLength(s));
      hash.update(s);
      keys.push(hash.copy().digest('hex'));
    }
    const total = tokens(ends.at(-1) ?? 0);
    if (v.breakpoints.length === 0) return { input_tokens: total, cache_creation_input_tokens: 0, cache_read_input_tokens: 0 };
    let hit = -1;
    for (const bp of v.breakpoints) {
      for (let i = bp; i >= Math.max(0, bp - CACHE_LOOKBACK_BLOCKS); i--) {
        if (cache.has(keys[i])) {
          hit = Math.max(hit, i);
          break;
        }
      }
    }
    const last = v.breakpoints.at(-1)!;
    for (const bp of v.breakpoints) cache.add(keys[bp]);
    const read = hit >= 0 ? tokens(ends[hit]) : 0;
    const upToLast = tokens(ends[last]);
    return { input_tokens: total - upToLast, cache_creation_input_tokens: upToLast - read, cache_read_input_tokens: read };
  };

  /** Writes events one by one (waiting for each write, so a following destroy() does not drop them). */
  const writeEvents = async (res: http.ServerResponse, events: SseEvent[], delayMs = 0): Promise<boolean> => {
    for (const e of events) {
      if (res.destroyed || closing.signal.aborted) return false;
      await new Promise<void>((resolve) => res.write(sse(e), () => resolve()));
      if (delayMs > 0) {
        try {
          await delay(delayMs, undefined, { signal: closing.signal });
        } catch {
          return false; // the server is closing
        }
      }
    }
    return !res.destroyed;
  };

  const startStream = (res: http.ServerResponse) => {
    res.writeHead(200, { 'content-type': 'text/event-stream; charset=utf-8', 'cache-control': 'no-cache' });
    res.flushHeaders();
  };

  const serve = async (res: http.ServerResponse, request: RecordedAnthropicRequest, v: ValidatedRequest, r: FakeAnthropicResponse) => {
    const model = request.body.model as string;
    const stopSequence = (request.body.stop_sequences as string[] | undefined)?.[0] ?? null;
    switch (r.kind) {
      case 'error':
        sendError(res, r.status, r.body ?? errorBody(r.status), r.headers);
        return;
      case 'hang':
        startStream(res);
        return; // the socket stays open until the client gives up or close() destroys it
      case 'stream':
        startStream(res);
        if (await writeEvents(res, messageEvents(r, model, cacheUsage(model, v), stopSequence), r.chunkDelayMs)) res.end();
        return;
      case 'cut': {
        startStream(res);
        const events = messageEvents({ kind: 'stream', text: r.text ?? 'This stream is cut short.' }, model, cacheUsage(model, v), null);
        await writeEvents(res, events.slice(0, r.afterEvents));
        res.socket?.destroy(); // no terminating chunk: the client sees the connection drop mid-body
        return;
      }
      case 'truncated': {
        startStream(res);
        const full = messageEvents({ kind: 'stream', text: r.text ?? 'This stream ends early.' }, model, cacheUsage(model, v), null);
        const events = full.filter((e) => ['message_start', 'ping', 'content_block_start', 'content_block_delta'].includes(e.event));
        if (await writeEvents(res, events)) res.end(); // a clean end of the HTTP body, just without the end events
        return;
      }
      case 'error_event': {
        startStream(res);
        const events = messageEvents({ kind: 'stream', text: r.text ?? 'This stream fails.' }, model, cacheUsage(model, v), null);
        const error = { type: 'error', error: { type: r.errorType ?? 'overloaded_error', message: r.message ?? 'Overloaded' } };
        if (await writeEvents(res, [...events.slice(0, r.afterEvents), { event: 'error', data: error }])) res.end();
        return;
      }
    }
  };

  const handle = async (req: http.IncomingMessage, res: http.ServerResponse) => {
    res.setHeader('request-id', randomId('req_'));
    const chunks: Buffer[] = [];
    let size = 0;
    for await (const chunk of req as AsyncIterable<Buffer>) {
      size += chunk.length;
      if (size <= MAX_BODY_BYTES) chunks.push(chunk); // past the limit, keep draining but stop keeping
    }
    const raw = Buffer.concat(chunks).toString('utf8');
    let body: unknown = raw;
    let parsed = raw.length > 0;
    try {
      if (parsed) body = JSON.parse(raw);
    } catch {
      parsed = false;
    }
    const request: RecordedAnthropicRequest = { method: req.method ?? '', path: req.url ?? '', headers: { ...req.headers }, body, raw };
    server.requests.push(request);

    const pathname = new URL(req.url ?? '/', 'http://x').pathname;
    if (req.method !== 'POST' || pathname !== '/v1/messages') return sendError(res, 404, errorBody(404));
    // The API takes the key as `x-api-key`, or as `Authorization: Bearer <key>`, which is how the
    // installed SDK (1.12.0) sends `apiKey`. A key given either way must be the right one.
    const bearer = /^Bearer (.+)$/.exec(String(req.headers.authorization ?? ''))?.[1];
    const key = req.headers['x-api-key'] ?? bearer;
    if (key === undefined) return sendError(res, 401, errorBody(401, 'x-api-key header is required'));
    if (key !== server.apiKey) return sendError(res, 401, errorBody(401, 'invalid x-api-key'));
    if (!req.headers['anthropic-version']) return sendError(res, 400, errorBody(400, 'anthropic-version: header is required'));
    if (size > MAX_BODY_BYTES) return sendError(res, 413, errorBody(413));
    if (!parsed) return sendError(res, 400, errorBody(400, 'There was an error parsing the body as JSON. Check that the request body is valid JSON.'));

    let validated: ValidatedRequest;
    try {
      validated = validateMessagesRequest(body);
    } catch (e) {
      if (e instanceof InvalidRequestError) return sendError(res, 400, errorBody(400, e.message));
      throw e;
    }
    const refused = server.refuseImage && sentImagePaths(body).find(([, bytes]) => server.refuseImage!(bytes));
    if (refused) return sendError(res, 400, errorBody(400, `${refused[0]}.data: Could not process image`));
    let scripted: FakeAnthropicResponse | undefined = queue.shift();
    if (!scripted && server.respond) {
      try {
        scripted = server.respond(request);
      } catch (e) {
        return sendError(res, 500, errorBody(500, `fake-anthropic: respond() threw: ${e instanceof Error ? e.message : String(e)}`));
      }
    }
    if (!scripted) {
      return sendError(res, 500, errorBody(500, 'fake-anthropic: the script ran out: no enqueued response left and no `respond` function for this request'));
    }
    await serve(res, request, validated, scripted);
  };

  const httpServer = http.createServer((req, res) => {
    handle(req, res).catch((e: unknown) => {
      // A bug in the fake itself: report it as an api_error rather than leaving the client waiting.
      if (!res.headersSent) sendError(res, 500, errorBody(500, `fake-anthropic: ${e instanceof Error ? e.message : String(e)}`));
      else res.destroy();
    });
  });
  await new Promise<void>((resolve, reject) => {
    httpServer.once('error', reject);
    httpServer.listen(0, '127.0.0.1', () => resolve());
  });
  const { port } = httpServer.address() as AddressInfo;

  const server: FakeAnthropicServer = {
    url: `http://127.0.0.1:${port}`,
    requests: [],
    apiKey: options.apiKey ?? 'sk-ant-test-fake',
    enqueue: (...responses) => void queue.push(...responses),
    close() {
      closed ??= new Promise<void>((resolve) => {
        closing.abort();
        httpServer.close(() => resolve());
        // close() alone waits for keep-alive and hanging responses; end them so close() is prompt.
        httpServer.closeAllConnections();
      });
      return closed;
    },
  };
  return server;
}

/** Where each base64 image of a (valid) request is, as Anthropic names it in errors, with its bytes. */
function sentImagePaths(body: unknown): Array<[string, Buffer]> {
  const messages = ((body as { messages?: unknown[] })?.messages ?? []) as Array<{ content?: unknown }>;
  return messages.flatMap((m, i) =>
    Array.isArray(m.content)
      ? (m.content as Array<{ type?: string; source?: { type?: string; data?: string } }>).flatMap((block, j): Array<[string, Buffer]> =>
          block.type === 'image' && block.source?.type === 'base64' && block.source.data
            ? [[`messages.${i}.content.${j}.image.source.base64`, Buffer.from(block.source.data, 'base64')]]
            : [],
        )
      : [],
  );
}
