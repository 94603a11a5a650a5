/**
 * GET /agents/:id/events read with fetch and a stream reader (EventSource cannot send the
 * Authorization header). Each SSE frame's `id:` is the stream's cursor; after a drop the page asks
 * again with `Last-Event-ID`, and the gateway continues after it: nothing lost, nothing repeated.
 */
import { agentPath, authHeaders, failure } from './api.js';

const FIRST_RETRY_MS = 500;
const LAST_RETRY_MS = 10_000;

/** Splits an SSE byte stream into frames `{ id?, event?, data }` (comments and empty frames are skipped). */
export async function* sseFrames(body) {
  const reader = body.pipeThrough(new TextDecoderStream()).getReader();
  let buffer = '';
  try {
    for (;;) {
      const { value, done } = await reader.read();
      if (done) return;
      buffer += value;
      for (let end = /\r\n\r\n|\n\n|\r\r/.exec(buffer); end; end = /\r\n\r\n|\n\n|\r\r/.exec(buffer)) {
        const frame = parseFrame(buffer.slice(0, end.index));
        buffer = buffer.slice(end.index + end[0].length);
        if (frame.data !== '' || frame.id !== undefined) yield frame;
      }
    }
  } finally {
    reader.cancel().catch(() => {});
  }
}

function parseFrame(block) {
  const data = [];
  let id;
  let event;
  for (const line of block.split(/\r\n|\n|\r/)) {
    if (line === '' || line.startsWith(':')) continue;
    const colon = line.indexOf(':');
    const field = colon < 0 ? line : line.slice(0, colon);
    let value = colon < 0 ? '' : line.slice(colon + 1);
    if (value.startsWith(' ')) value = value.slice(1);
    if (field === 'data') data.push(value);
    else if (field === 'id') id = value;
    else if (field === 'event') event = value;
  }
  return { id, event, data: data.join('\n') };
}

/**
 * Follows an agent's events from the start of its history, forever, reconnecting after drops.
 * `onEvent(event)` gets each AG-UI event object; `onStatus(status, detail?)` gets 'connecting', 'live',
 * 'reconnecting', 'unauthorized' or 'gone'. Returns `{ close() }`.
 */
export function followEvents(agentId, { onEvent, onStatus }) {
  const controller = new AbortController();
  const { signal } = controller;
  let cursor = null;
  const run = async () => {
    let delay = FIRST_RETRY_MS;
    onStatus('connecting');
    while (!signal.aborted) {
      let why = 'the stream ended';
      try {
        const headers = authHeaders({ Accept: 'text/event-stream' });
        if (cursor !== null) headers['Last-Event-ID'] = cursor;
        const url = agentPath(agentId, '/events') + (cursor === null ? '?after=0' : '');
        const res = await fetch(url, { headers, signal, cache: 'no-store' });
        if (!res.ok) {
          const err = await failure(res);
          // Asking again cannot help: wait for a token or another agent.
          if (res.status === 401 || res.status === 403) return onStatus('unauthorized', err.message);
          if (res.status === 404) return onStatus('gone', err.message);
          throw err;
        }
        onStatus('live');
        delay = FIRST_RETRY_MS;
        for await (const frame of sseFrames(res.body)) {
          if (frame.id !== undefined) cursor = frame.id;
          if (frame.data) deliver(frame.data);
        }
      } catch (err) {
        if (signal.aborted) return;
        why = err instanceof Error ? err.message : String(err);
      }
      if (signal.aborted) return;
      onStatus('reconnecting', why);
      await new Promise((resolve) => {
        const timer = setTimeout(resolve, delay);
        signal.addEventListener('abort', () => (clearTimeout(timer), resolve()), { once: true });
      });
      delay = Math.min(delay * 2, LAST_RETRY_MS);
    }
  };
  // A page bug on one event must not make the stream ask for that event again and again.
  const deliver = (data) => {
    try {
      onEvent(JSON.parse(data));
    } catch (err) {
      console.error('livecontext: an event the page could not show', err, data);
    }
  };
  run().catch((err) => onStatus('reconnecting', String(err)));
  return { close: () => controller.abort() };
}
