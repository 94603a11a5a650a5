/**
 * AG-UI events as Server-Sent Events: each frame is `id: <cursor>` and @ag-ui/encoder's `data:` frame,
 * so a client that reconnects with `Last-Event-ID` continues after the last frame it received. A comment
 * line every KEEP_ALIVE_MS keeps proxies from closing a quiet stream. The events stop being made as soon
 * as the client goes away.
 */
import { EventEncoder } from '@ag-ui/encoder';
import type { Context } from 'hono';
import { stream } from 'hono/streaming';
import { formatCursor } from './cursor';
import type { Emitted } from './derive-events';

export const KEEP_ALIVE_MS = 15_000;

/** One SSE frame. */
export function sseFrame(encoder: EventEncoder, item: Emitted): string {
  return `id: ${formatCursor(item.cursor)}\n${encoder.encodeSSE(item.event)}`;
}

/**
 * Streams the events `make(signal)` yields; `signal` aborts when the client disconnects. While it runs
 * the stream is in `open` (so closing the gateway can wait for the Temporal calls it has in flight).
 */
export function sseResponse(
  c: Context,
  make: (signal: AbortSignal) => AsyncIterable<Emitted>,
  log: (message: string) => void,
  keepAliveMs = KEEP_ALIVE_MS,
  open?: Set<Promise<void>>,
): Response {
  c.header('Content-Type', 'text/event-stream');
  c.header('Cache-Control', 'no-cache, no-transform');
  c.header('Connection', 'keep-alive');
  c.header('X-Accel-Buffering', 'no'); // nginx: pass each frame on at once
  return stream(c, async (s) => {
    let finished = () => {};
    const done = new Promise<void>((resolve) => (finished = resolve));
    open?.add(done);
    const abort = new AbortController();
    const stop = () => abort.abort();
    s.onAbort(stop);
    c.req.raw.signal.addEventListener('abort', stop, { once: true });
    const encoder = new EventEncoder();
    let lastWrite = Date.now();
    const keepAlive = setInterval(() => {
      if (Date.now() - lastWrite < keepAliveMs) return;
      lastWrite = Date.now();
      s.write(': keep-alive\n\n').catch(stop);
    }, keepAliveMs / 3);
    try {
      for await (const item of make(abort.signal)) {
        if (abort.signal.aborted) break;
        lastWrite = Date.now();
        await s.write(sseFrame(encoder, item));
      }
    } catch (err) {
      // Headers are sent: the stream can only end. The client resumes with its last id.
      if (!abort.signal.aborted) log(`gateway: event stream ${c.req.path}: ${(err as Error).stack ?? String(err)}`);
    } finally {
      clearInterval(keepAlive);
      abort.abort();
      c.req.raw.signal.removeEventListener('abort', stop);
      open?.delete(done);
      finished();
    }
  });
}
