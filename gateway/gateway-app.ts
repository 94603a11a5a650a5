/**
 * The HTTP gateway: a thin, stateless layer over AgentClient. Every request reads or changes an agent in
 * Temporal and keeps nothing, so any number of gateways can serve behind a load balancer, and a stream
 * picked up by another one continues where the last left off (see events/).
 */
import { Hono } from 'hono';
import { bodyLimit } from 'hono/body-limit';
import { cors } from 'hono/cors';
import type { AgentClient } from '../client/agent-client';
import { HttpError, errorBody, toHttpError } from './http-errors';
import { guardChanges } from './request-guard';
import type { SseStreamInfo } from './events/sse';
import { traceRequests } from './trace-middleware';
import { type GatewayToken, type TokenScope, scopeOf } from './tokens';

export interface GatewayOptions {
  agents: AgentClient;
  /** Accepted bearer tokens; none means no authentication (allowed on loopback only, see serve). */
  tokens: readonly GatewayToken[];
  /** Origins allowed by CORS (`*` for any); none: same origin only. */
  corsOrigins?: readonly string[];
  /** Largest request body in bytes (default 1 MiB, and 8 MiB for import); more is refused with 413. */
  bodyLimitBytes?: number;
  /** Where errors the client does not see in full are written. */
  log?: (message: string) => void;
  /** The event streams being served (set by serveGateway, which waits for them when it closes). */
  openStreams?: Set<Promise<void>>;
  /** What each open event stream holds (for tests and diagnostics). */
  streamWatch?: Set<SseStreamInfo>;
  /** Most bytes of events made ahead of a client that does not read (default SSE_BUFFER_BYTES, 256 KiB). */
  sseBufferBytes?: number;
  /** A client that reads nothing for this long, with its buffer full, is disconnected (default SSE_STALL_MS, 2 min). */
  sseStallMs?: number;
  /** The agent the gateway's `/.well-known/agent-card.json` describes (A2A); every agent has its own card under /a2a/agents/{id}. */
  a2aDefaultAgent?: string;
}

export type Scope = TokenScope | 'open';
export interface GatewayEnv {
  Variables: { scope: Scope };
}

export const DEFAULT_BODY_LIMIT = 1024 * 1024;
export const IMPORT_BODY_LIMIT = 8 * 1024 * 1024;

/** The Host header of a request to this machine (any port). */
const LOOPBACK_HOST = /^(127\.0\.0\.1|localhost|\[::1\])(:\d+)?$/i;

/** The agent a path names (`/agents/<id>…`), for the words of a 404. */
function agentInPath(path: string): string | undefined {
  const segment = /^\/agents\/([^/]+)/.exec(path)?.[1];
  if (!segment || segment === 'import') return undefined;
  try {
    return decodeURIComponent(segment);
  } catch {
    return segment;
  }
}

/**
 * Paths anyone may read: the page, its assets and the API description carry no agent data; the default
 * A2A agent's card is published on purpose (discovery comes before a token), and says a token is needed.
 */
const PUBLIC_PATH = /^\/(|index\.html|assets\/.*|openapi\.json|healthz|\.well-known\/agent-card\.json)$/;

export function createGatewayApp(options: GatewayOptions): Hono<GatewayEnv> {
  const app = new Hono<GatewayEnv>();
  app.use('*', traceRequests()); // first: a span per request, continuing the caller's traceparent
  const log = options.log ?? ((m) => console.error(m));

  app.onError((err, c) => {
    const e = toHttpError(err, agentInPath(c.req.path));
    if (e.status >= 500 && e.code === 'INTERNAL') log(`gateway: ${c.req.method} ${c.req.path}: ${(err as Error).stack ?? String(err)}`);
    return c.json(errorBody(e), e.status);
  });
  app.notFound((c) => c.json(errorBody(new HttpError(404, 'NOT_FOUND', `No route ${c.req.method} ${c.req.path}.`)), 404));

  if (options.corsOrigins?.length) {
    const origins = [...options.corsOrigins];
    app.use(
      '*',
      cors({
        origin: origins.includes('*') ? '*' : origins,
        allowHeaders: ['Authorization', 'Content-Type', 'Idempotency-Key', 'Last-Event-ID', 'Mcp-Session-Id', 'Mcp-Protocol-Version'],
        exposeHeaders: ['Mcp-Session-Id'],
      }),
    );
  }

  app.use('*', async (c, next) => {
    const limit = c.req.path === '/agents/import' || c.req.path.endsWith('/import') ? IMPORT_BODY_LIMIT : (options.bodyLimitBytes ?? DEFAULT_BODY_LIMIT);
    return bodyLimit({
      maxSize: limit,
      onError: (cc) => cc.json(errorBody(new HttpError(413, 'PAYLOAD_TOO_LARGE', `The request body is over ${limit} bytes.`)), 413),
    })(c, next);
  });

  app.use('*', async (c, next) => {
    if (options.tokens.length === 0) {
      // Open only to this machine. A web page elsewhere could reach it under a name of its own that
      // resolves to 127.0.0.1 (DNS rebinding): so the request must also name a loopback host.
      if (!LOOPBACK_HOST.test(c.req.header('host') ?? '')) {
        throw new HttpError(
          403,
          'NOT_LOOPBACK',
          'A gateway without a token answers only requests to 127.0.0.1, localhost or [::1]; set LIVECONTEXT_GATEWAY_TOKEN to serve other names.',
        );
      }
      c.set('scope', 'open');
      return next();
    }
    if (c.req.method === 'OPTIONS' || PUBLIC_PATH.test(c.req.path)) {
      c.set('scope', 'open');
      return next();
    }
    const header = c.req.header('authorization') ?? '';
    const match = /^Bearer\s+(.+)$/i.exec(header);
    const scope = match ? scopeOf(options.tokens, match[1].trim()) : null;
    if (!scope) {
      c.header('WWW-Authenticate', 'Bearer');
      throw new HttpError(401, 'UNAUTHORIZED', match ? 'The bearer token is not valid.' : 'Send an Authorization: Bearer <token> header.');
    }
    c.set('scope', scope);
    // Reads are GET; everything else changes an agent, except /mcp, whose tools check for themselves.
    if (scope === 'read' && !['GET', 'HEAD'].includes(c.req.method) && c.req.path !== '/mcp') {
      throw new HttpError(403, 'READ_ONLY_TOKEN', 'This token may only read; changing an agent needs a full token.');
    }
    return next();
  });
  // A web page on another site must not change agents through the browser of someone who runs this
  // gateway (see request-guard). /mcp checks the Origin itself, and its transport the JSON type.
  app.use('*', guardChanges(options.corsOrigins, new Set(['/mcp'])));

  app.get('/healthz', (c) => c.json({ ok: true }));
  return app;
}
