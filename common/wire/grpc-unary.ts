/**
 * Unary gRPC calls over Node's own HTTP/2 (gRPC's wire protocol: a POST per call, each message framed by
 * a flag byte and a 4-byte length, the status in the trailers), for the CLI's quick reads: loading
 * @grpc/grpc-js costs a CLI start more than the calls themselves. No retries, no proxies, no compression:
 * whoever calls this falls back to Temporal's own client for anything else.
 */
import http2 from 'node:http2';
import type { SecureClientSessionOptions } from 'node:http2';

export interface GrpcTarget {
  /** host:port */
  address: string;
  /** Off: plain HTTP/2 (h2c), as a local dev server speaks. */
  tls?: { serverName?: string; ca?: Buffer; cert?: Buffer; key?: Buffer };
  /** Sent with every call (lower-cased names), e.g. authorization. */
  metadata?: Record<string, string>;
}

/** A failed call: a gRPC status from the server, or no answer from it (code undefined). */
export class GrpcCallError extends Error {
  constructor(
    message: string,
    /** The gRPC status code; undefined when the call never got one (connection refused, reset, deadline). */
    readonly code: number | undefined,
    /** Our deadline passed (the call was cancelled here). */
    readonly deadlineExceeded = false,
  ) {
    super(message);
    this.name = 'GrpcCallError';
  }
}

export class GrpcChannel {
  private readonly session: http2.ClientHttp2Session;
  private failure: Error | undefined;

  constructor(private readonly target: GrpcTarget) {
    const options: SecureClientSessionOptions = target.tls
      ? {
          ...(target.tls.serverName ? { servername: target.tls.serverName } : {}),
          ...(target.tls.ca ? { ca: target.tls.ca } : {}),
          ...(target.tls.cert ? { cert: target.tls.cert } : {}),
          ...(target.tls.key ? { key: target.tls.key } : {}),
          ALPNProtocols: ['h2'],
        }
      : {};
    this.session = http2.connect(`${target.tls ? 'https' : 'http'}://${target.address}`, options);
    this.session.on('error', (err) => (this.failure = err));
  }

  /** One call: `service/method` with an encoded request; resolves to the encoded response. */
  call(path: string, request: Uint8Array, timeoutMs: number): Promise<Uint8Array> {
    return new Promise((resolve, reject) => {
      if (this.failure) return reject(new GrpcCallError(this.failure.message, undefined));
      const frame = Buffer.alloc(5 + request.length);
      frame.writeUInt32BE(request.length, 1);
      frame.set(request, 5);
      const stream = this.session.request({
        ':method': 'POST',
        ':path': `/${path}`,
        'content-type': 'application/grpc',
        te: 'trailers',
        'grpc-timeout': `${Math.max(1, Math.ceil(timeoutMs))}m`,
        ...(this.target.tls?.serverName ? { ':authority': this.target.tls.serverName } : {}),
        ...this.target.metadata,
      });
      const chunks: Buffer[] = [];
      let headers: http2.IncomingHttpHeaders = {};
      let settled = false;
      const done = (err: Error | undefined, value?: Uint8Array) => {
        if (settled) return;
        settled = true;
        clearTimeout(timer);
        if (err) reject(err);
        else resolve(value!);
      };
      const timer = setTimeout(() => {
        stream.close(http2.constants.NGHTTP2_CANCEL);
        done(new GrpcCallError(`Deadline of ${timeoutMs} ms exceeded`, undefined, true));
      }, timeoutMs);
      stream.on('response', (h) => (headers = h));
      stream.on('data', (c: Buffer) => chunks.push(c));
      stream.on('error', (err) => done(new GrpcCallError(err.message, undefined)));
      // A trailers-only answer (an error at once) carries the status in its headers.
      stream.on('trailers', (t) => (headers = { ...headers, ...t }));
      stream.on('close', () => {
        if (settled) return;
        const status = Number(headers['grpc-status'] ?? NaN);
        if (Number.isNaN(status)) return done(new GrpcCallError(this.failure?.message ?? `No gRPC status (HTTP ${headers[':status'] ?? 'none'})`, undefined));
        if (status !== 0) return done(new GrpcCallError(decodeURIComponent(String(headers['grpc-message'] ?? '')), status));
        const body = Buffer.concat(chunks);
        if (body.length < 5 || body[0] !== 0) return done(new GrpcCallError('Unreadable gRPC answer (empty or compressed)', undefined));
        done(undefined, body.subarray(5, 5 + body.readUInt32BE(1)));
      });
      stream.end(frame);
    });
  }

  close(): void {
    this.session.close();
  }
}
