/**
 * `livecontext serve`: the gateway on a port. It refuses to listen beyond loopback without a token:
 * an open gateway on a network would let anyone drive every agent in the namespace.
 */
import type { AddressInfo } from 'node:net';
import { serve } from '@hono/node-server';
import { UserError } from '../common/user-error';
import { buildGateway } from './gateway';
import type { GatewayOptions } from './gateway-app';

export const DEFAULT_PORT = 8787;
/** How long closing waits for ended streams' Temporal calls in flight. */
const STREAM_DRAIN_MS = 10_000;
const LOOPBACK = new Set(['127.0.0.1', '::1', 'localhost']);

export interface ServeOptions extends GatewayOptions {
  port?: number;
  /** Default 127.0.0.1 (this machine only). */
  host?: string;
}

export interface RunningGateway {
  url: string;
  port: number;
  close(): Promise<void>;
}

export async function serveGateway(options: ServeOptions): Promise<RunningGateway> {
  const host = options.host ?? '127.0.0.1';
  if (!LOOPBACK.has(host) && options.tokens.length === 0) {
    throw new UserError(
      `Refusing to listen on ${host} without a token: set LIVECONTEXT_GATEWAY_TOKEN (and optionally LIVECONTEXT_GATEWAY_READ_TOKEN), or listen on 127.0.0.1.`,
    );
  }
  const openStreams = new Set<Promise<void>>();
  const app = buildGateway({ ...options, openStreams });
  const server = await new Promise<ReturnType<typeof serve>>((resolve, reject) => {
    const s = serve({ fetch: app.fetch, port: options.port ?? DEFAULT_PORT, hostname: host }, () => resolve(s));
    s.once('error', (err: NodeJS.ErrnoException) =>
      reject(err.code === 'EADDRINUSE' ? new UserError(`Port ${options.port ?? DEFAULT_PORT} is in use: choose another with --port.`) : err),
    );
  });
  const port = (server.address() as AddressInfo).port;
  const shown = host.includes(':') ? `[${host}]` : host;
  return {
    url: `http://${shown}:${port}`,
    port,
    close: async () => {
      await new Promise<void>((resolve) => {
        // Streams stay open for as long as their clients listen: end them rather than wait.
        (server as unknown as { closeAllConnections?: () => void }).closeAllConnections?.();
        server.close(() => resolve());
      });
      // Ended streams may still await a Temporal call: let it finish (briefly) before the caller closes
      // its connection under it.
      await Promise.race([Promise.allSettled([...openStreams]), new Promise((r) => setTimeout(r, STREAM_DRAIN_MS).unref())]);
    },
  };
}
