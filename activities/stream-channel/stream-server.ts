/**
 * The worker's stream endpoint: each running model call publishes its partial output here, and readers
 * (the gateway's event streams, the chat) follow it over Server-Sent Events instead of through Temporal
 * heartbeats, so streaming costs no Temporal action per delta. The call's first heartbeat names the
 * stream (see call-model.ts); a reader shows HMAC(secret, key) as a bearer token (common/stream-channel).
 *
 * GET /v1/calls/<key> → `data: <PartialOutput JSON>` on each change, `event: end` when the call ends.
 * An unknown or ended call is 404 and a wrong token 403: readers then use the heartbeat's partial output.
 */
import { randomUUID } from 'node:crypto';
import http from 'node:http';
import type { AddressInfo } from 'node:net';
import { ensureStreamSecret, tokenMatches } from '../../common/stream-channel/secret';

/** Where readers find one call's stream: what the call's heartbeat carries (no secret in it). */
export interface StreamLocation {
  /** The stream's URL on the worker's endpoint. */
  url: string;
  /** The attempt that publishes there: a reader of another attempt's heartbeat must not use it. */
  attempt: number;
}

/** One call's stream, written by its activity. */
export interface CallStream {
  readonly location: StreamLocation;
  /**
   * The partial output now (a bounded snapshot, the same shape as the heartbeat's); or a function that makes
   * it, called only once someone reads the stream (most calls are followed by nobody).
   */
  publish(partial: unknown): void;
  /** The call ended (answered, failed or cancelled): readers get `end` and the stream is forgotten. */
  end(): void;
}

interface Live {
  latest: string | undefined;
  /** What makes the latest output, published while nobody read: made when a reader comes. */
  make?: () => unknown;
  readers: Set<(data: string | null) => void>;
}

export interface StreamChannelOptions {
  /** host:port to listen on (LIVECONTEXT_STREAM_LISTEN); default 127.0.0.1 on a free port. */
  listen?: string;
  /** The base URL readers use (LIVECONTEXT_STREAM_URL), when the listening address is not it (other machines, a proxy). */
  advertise?: string;
}

export class StreamChannel {
  private readonly calls = new Map<string, Live>();

  private constructor(
    private readonly server: http.Server,
    private readonly secret: Buffer,
    readonly baseUrl: string,
  ) {}

  /**
   * The endpoint configured by the environment, or undefined when it is off (LIVECONTEXT_STREAM_CHANNEL=0)
   * or cannot start (no secret, the port is taken): model calls then stream through heartbeats.
   */
  static async fromEnvironment(log: (message: string) => void = () => {}): Promise<StreamChannel | undefined> {
    if (process.env.LIVECONTEXT_STREAM_CHANNEL === '0') return undefined;
    try {
      return await StreamChannel.start({ listen: process.env.LIVECONTEXT_STREAM_LISTEN, advertise: process.env.LIVECONTEXT_STREAM_URL });
    } catch (err) {
      log(`The model stream endpoint did not start (${(err as Error).message}); partial output goes through heartbeats.`);
      return undefined;
    }
  }

  static async start(options: StreamChannelOptions = {}): Promise<StreamChannel> {
    const secret = ensureStreamSecret();
    if (!secret) throw new Error('no stream secret (set LIVECONTEXT_STREAM_SECRET, or let the worker write LIVECONTEXT_STREAM_SECRET_FILE)');
    const [host, port] = splitHostPort(options.listen ?? '127.0.0.1:0');
    const serving: { channel?: StreamChannel } = {};
    const server = http.createServer((req, res) => serving.channel?.serve(req, res));
    await new Promise<void>((resolve, reject) => {
      server.once('error', reject);
      server.listen(port, host, () => resolve());
    });
    server.unref(); // the worker's life decides the process's, not this endpoint
    const address = server.address() as AddressInfo;
    const shown = address.family === 'IPv6' ? `[${address.address}]` : address.address;
    const local = `http://${shown === '0.0.0.0' || shown === '[::]' ? '127.0.0.1' : shown}:${address.port}`;
    serving.channel = new StreamChannel(server, secret, (options.advertise ?? local).replace(/\/+$/, ''));
    return serving.channel;
  }

  /** A stream for one attempt of one model call. */
  open(attempt: number): CallStream {
    const key = randomUUID();
    const live: Live = { latest: undefined, readers: new Set() };
    this.calls.set(key, live);
    return {
      location: { url: `${this.baseUrl}/v1/calls/${key}`, attempt },
      publish: (partial) => {
        if (!this.calls.has(key)) return;
        if (typeof partial === 'function' && !live.readers.size) return void (live.make = partial as () => unknown);
        live.make = undefined;
        live.latest = JSON.stringify(typeof partial === 'function' ? (partial as () => unknown)() : partial);
        for (const reader of live.readers) reader(live.latest);
      },
      end: () => {
        if (!this.calls.delete(key)) return;
        for (const reader of live.readers) reader(null);
        live.readers.clear();
      },
    };
  }

  /** Calls streaming now. */
  get openCalls(): number {
    return this.calls.size;
  }

  async close(): Promise<void> {
    for (const live of this.calls.values()) for (const reader of live.readers) reader(null);
    this.calls.clear();
    this.server.closeAllConnections();
    await new Promise<void>((resolve) => this.server.close(() => resolve()));
  }

  private serve(req: http.IncomingMessage, res: http.ServerResponse): void {
    const match = /^\/v1\/calls\/([0-9a-f-]{36})$/.exec(req.url ?? '');
    if (req.method !== 'GET' || !match) return void res.writeHead(404).end();
    const key = match[1];
    const token = /^Bearer (.+)$/.exec(req.headers.authorization ?? '')?.[1] ?? '';
    if (!tokenMatches(this.secret, key, token)) return void res.writeHead(403).end();
    const live = this.calls.get(key);
    if (!live) return void res.writeHead(404).end();
    res.writeHead(200, { 'content-type': 'text/event-stream', 'cache-control': 'no-store', 'x-accel-buffering': 'no' });
    // A slow reader gets the latest snapshot when it drains, not every one it missed.
    let waiting = false;
    let pending: string | undefined;
    const send = (data: string | null) => {
      if (data === null) {
        res.end('event: end\ndata: {}\n\n');
        return;
      }
      if (waiting) return void (pending = data);
      waiting = !res.write(`data: ${data}\n\n`);
    };
    res.on('drain', () => {
      waiting = false;
      if (pending === undefined) return;
      const data = pending;
      pending = undefined;
      send(data);
    });
    live.readers.add(send);
    req.on('close', () => live.readers.delete(send));
    if (live.make) {
      live.latest = JSON.stringify(live.make());
      live.make = undefined;
    }
    if (live.latest !== undefined) send(live.latest);
  }
}

function splitHostPort(listen: string): [string, number] {
  const at = listen.lastIndexOf(':');
  if (at < 0) return ['127.0.0.1', Number(listen)];
  return [listen.slice(0, at).replace(/^\[|\]$/g, '') || '0.0.0.0', Number(listen.slice(at + 1))];
}
