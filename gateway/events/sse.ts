/**
 * AG-UI events as Server-Sent Events: each frame is `id: <cursor>` and @ag-ui/encoder's `data:` frame,
 * so a client that reconnects with `Last-Event-ID` continues after the last frame it received. A comment
 * line every KEEP_ALIVE_MS keeps proxies from closing a quiet stream. The events stop being made as soon
 * as the client goes away.
 */
import { EventEncoder } from '@ag-ui/encoder';
import type { Context } from 'hono';
import { formatCursor } from './cursor';
import type { GatewayOptions } from '../gateway-app';
import type { Emitted } from './derive-events';

export const KEEP_ALIVE_MS = 15_000;

/** One SSE frame. */
export function sseFrame(encoder: EventEncoder, item: Emitted): string {
  return `id: ${formatCursor(item.cursor)}\n${encoder.encodeSSE(item.event)}`;
}

/** What the gateway holds for one open stream (tests and diagnostics read it). */
export interface SseStreamInfo {
  path: string;
  /** Bytes made and handed on so far. */
  sentBytes: number;
  /** Bytes made and not yet taken by the connection: the stream's own queue and Node's socket buffer. */
  queuedBytes(): number;
  /** The queue is full: nothing more is made until the client reads. */
  waitingForClient(): boolean;
}

/** How an event stream is served (defaults for a gateway in GatewayOptions). */
export interface SseOptions {
  log: (message: string) => void;
  keepAliveMs?: number;
  /** The streams being served (closing the gateway waits for their Temporal calls). */
  open?: Set<Promise<void>>;
  /** Each stream's SseStreamInfo while it is open. */
  watch?: Set<SseStreamInfo>;
  /** Most bytes made ahead of a client that does not read (default SSE_BUFFER_BYTES). */
  bufferBytes?: number;
  /** A client that takes nothing for this long, its queue full, is disconnected (default SSE_STALL_MS). */
  stallMs?: number;
}

/** Events made ahead of the client, at most: past this nothing more is read from the agent until it reads. */
export const SSE_BUFFER_BYTES = 256 * 1024;
/** A client that reads nothing for this long (its queue full) is let go; it resumes with its Last-Event-ID. */
export const SSE_STALL_MS = 120_000;

/**
 * Streams the events `make(signal)` yields; `signal` aborts when the client disconnects. Pull-based: an
 * event is made only when the connection has taken what came before (up to `bufferBytes` made ahead),
 * so a client that does not read costs the gateway that much and a socket buffer, not a growing queue —
 * and no Temporal calls meanwhile. One that stays behind for `stallMs` is disconnected, with a log line.
 */
export function sseResponse(c: Context, make: (signal: AbortSignal) => AsyncIterable<Emitted>, o: SseOptions): Response {
  const keepAliveMs = o.keepAliveMs ?? KEEP_ALIVE_MS;
  const bufferBytes = o.bufferBytes ?? SSE_BUFFER_BYTES;
  const stallMs = o.stallMs ?? SSE_STALL_MS;
  c.header('Content-Type', 'text/event-stream');
  c.header('Cache-Control', 'no-cache, no-transform');
  c.header('Connection', 'keep-alive');
  c.header('X-Accel-Buffering', 'no'); // nginx: pass each frame on at once

  const abort = new AbortController();
  const stop = () => abort.abort();
  c.req.raw.signal.addEventListener('abort', stop, { once: true });
  let finished = () => {};
  const done = new Promise<void>((resolve) => (finished = resolve));
  o.open?.add(done);
  const encoder = new EventEncoder();
  const bytes = new TextEncoder();
  // Node's own buffer for the response (@hono/node-server puts the ServerResponse in c.env).
  const outgoing = (c.env as { outgoing?: { writableLength?: number } } | undefined)?.outgoing;
  let controller!: ReadableStreamDefaultController<Uint8Array>;
  let iterator: AsyncIterator<Emitted> | undefined;
  let keepAlive: NodeJS.Timeout | undefined;
  let lastWrite = Date.now();
  let stalledSince: number | undefined;
  let ended = false;
  const queued = () => (ended ? 0 : Math.max(0, bufferBytes - (controller.desiredSize ?? bufferBytes))) + (outgoing?.writableLength ?? 0);
  const info: SseStreamInfo = { path: c.req.path, sentBytes: 0, queuedBytes: queued, waitingForClient: () => !ended && (controller.desiredSize ?? 1) <= 0 };
  o.watch?.add(info);

  const finish = () => {
    if (ended) return;
    ended = true;
    clearInterval(keepAlive);
    abort.abort();
    c.req.raw.signal.removeEventListener('abort', stop);
    o.watch?.delete(info);
    o.open?.delete(done);
    void iterator?.return?.(undefined)?.catch(() => {});
    finished();
  };
  const enqueue = (text: string) => {
    const chunk = bytes.encode(text);
    info.sentBytes += chunk.byteLength;
    lastWrite = Date.now();
    controller.enqueue(chunk);
  };

  const body = new ReadableStream<Uint8Array>(
    {
      start(ctl) {
        controller = ctl;
        keepAlive = setInterval(
          () => {
            if (ended) return;
            if ((ctl.desiredSize ?? 1) <= 0) {
              // Full: the client takes nothing. Past stallMs it is let go (the socket with it).
              stalledSince ??= Date.now();
              if (Date.now() - stalledSince < stallMs) return;
              o.log(
                `gateway: event stream ${c.req.path}: the client read nothing for ${Math.round(stallMs / 1000)} s with ${queued()} bytes waiting; disconnected (it can resume with its Last-Event-ID)`,
              );
              ctl.error(new Error('The client read nothing for too long.'));
              finish();
              return;
            }
            stalledSince = undefined;
            if (Date.now() - lastWrite >= keepAliveMs) enqueue(': keep-alive\n\n');
          },
          Math.max(10, Math.min(keepAliveMs, stallMs) / 3),
        );
        keepAlive.unref?.();
      },
      async pull(ctl) {
        stalledSince = undefined; // the client took something
        if (ended) return;
        iterator ??= make(abort.signal)[Symbol.asyncIterator]();
        try {
          const next = await iterator.next();
          if (ended) return;
          if (next.done || abort.signal.aborted) {
            ctl.close();
            return finish();
          }
          enqueue(sseFrame(encoder, next.value));
        } catch (err) {
          // Headers are sent: the stream can only end. The client resumes with its last id.
          if (!abort.signal.aborted) o.log(`gateway: event stream ${c.req.path}: ${(err as Error).stack ?? String(err)}`);
          if (!ended) ctl.close();
          finish();
        }
      },
      cancel() {
        finish(); // the client went away
      },
    },
    { highWaterMark: bufferBytes, size: (chunk) => chunk.byteLength },
  );
  return c.body(body);
}

/** The stream options of a gateway's configuration. */
export function sseOptions(
  g: Pick<GatewayOptions, 'openStreams' | 'streamWatch' | 'sseBufferBytes' | 'sseStallMs'>,
  log: (message: string) => void,
): SseOptions {
  return {
    log,
    ...(g.openStreams ? { open: g.openStreams } : {}),
    ...(g.streamWatch ? { watch: g.streamWatch } : {}),
    ...(g.sseBufferBytes !== undefined ? { bufferBytes: g.sseBufferBytes } : {}),
    ...(g.sseStallMs !== undefined ? { stallMs: g.sseStallMs } : {}),
  };
}
