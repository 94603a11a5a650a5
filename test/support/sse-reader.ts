/**
 * Reads a gateway's Server-Sent Events with fetch (as the web page does: headers, including the bearer
 * token and Last-Event-ID, can be sent): each frame's `id` and its parsed `data`.
 */
export interface SseFrame {
  id: string | undefined;
  // eslint-disable-next-line @typescript-eslint/no-explicit-any -- tests read any event
  event: any;
  /** When the frame arrived (Date.now()). */
  at: number;
}

export interface SseRequest {
  method?: 'GET' | 'POST';
  headers?: Record<string, string>;
  body?: unknown;
  signal?: AbortSignal;
}

/** The frames of a stream as they arrive, until it ends (or fails: a killed server ends it with an error). */
export async function* readSse(url: string, request: SseRequest = {}): AsyncGenerator<SseFrame> {
  const res = await fetch(url, {
    method: request.method ?? 'GET',
    headers: { accept: 'text/event-stream', ...(request.body !== undefined ? { 'content-type': 'application/json' } : {}), ...request.headers },
    body: request.body === undefined ? undefined : JSON.stringify(request.body),
    signal: request.signal,
  });
  if (!res.ok || !res.body) throw new Error(`${url}: HTTP ${res.status} ${await res.text()}`);
  const decoder = new TextDecoder();
  let buffer = '';
  for await (const chunk of res.body as unknown as AsyncIterable<Uint8Array>) {
    buffer += decoder.decode(chunk, { stream: true });
    let end: number;
    while ((end = buffer.indexOf('\n\n')) >= 0) {
      const block = buffer.slice(0, end);
      buffer = buffer.slice(end + 2);
      let id: string | undefined;
      const data: string[] = [];
      for (const line of block.split('\n')) {
        if (line.startsWith('id:')) id = line.slice(3).trim();
        else if (line.startsWith('data:')) data.push(line.slice(5).replace(/^ /, ''));
      }
      if (data.length) yield { id, event: JSON.parse(data.join('\n')), at: Date.now() };
    }
  }
}

/**
 * Frames until `done(frame)` says the last one was wanted (then the stream is closed), the stream ends,
 * or it fails (`error` set: what a reader of a killed gateway sees).
 */
export async function collectSse(
  url: string,
  request: SseRequest,
  done: (frame: SseFrame, all: SseFrame[]) => boolean,
): Promise<{ frames: SseFrame[]; error?: unknown }> {
  const frames: SseFrame[] = [];
  const abort = new AbortController();
  request.signal?.addEventListener('abort', () => abort.abort());
  try {
    for await (const frame of readSse(url, { ...request, signal: abort.signal })) {
      frames.push(frame);
      if (done(frame, frames)) break;
    }
  } catch (error) {
    return { frames, error };
  } finally {
    abort.abort();
  }
  return { frames };
}

/**
 * The events as a sequence to compare two readers by: state events left out (they report what was polled
 * when, not what happened), and consecutive TEXT_MESSAGE_CONTENT deltas of one message joined (how the
 * text was cut depends on when it was polled).
 */
// eslint-disable-next-line @typescript-eslint/no-explicit-any -- tests read any event
export function normalised(frames: Array<{ event: any }>): unknown[] {
  // eslint-disable-next-line @typescript-eslint/no-explicit-any
  const out: any[] = [];
  for (const { event } of frames) {
    if (event.type === 'STATE_SNAPSHOT' || event.type === 'STATE_DELTA') continue;
    const last = out.at(-1);
    if (event.type === 'TEXT_MESSAGE_CONTENT' && last?.type === 'TEXT_MESSAGE_CONTENT' && last.messageId === event.messageId) {
      out[out.length - 1] = { ...last, delta: last.delta + event.delta };
    } else out.push({ ...event });
  }
  return out;
}
