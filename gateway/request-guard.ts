/**
 * What a web page on another site could do with the browser of someone who runs a gateway: a
 * `fetch(url, { method: 'POST', mode: 'no-cors' })` needs no CORS preflight when it sends no body, or a
 * `text/plain`, form or multipart one, and the browser sends it even though the page may not read the
 * answer. On a gateway without a token (npm start's, on loopback) that alone could stop, reset, retry,
 * interrupt an agent or approve its tool call. So every request that changes something must
 *
 * - come from the gateway's own origin or one allowed by CORS, when it names an Origin (browsers do on
 *   every cross-origin request and every POST; programs usually send none), and
 * - say `Content-Type: application/json` (even with no body): a type no page can send across origins
 *   without a preflight, which the gateway's CORS answers only for the origins it allows.
 *
 * Both checks hold with tokens too: they cost a well-behaved client nothing.
 */
import type { MiddlewareHandler } from 'hono';
import type { GatewayEnv } from './gateway-app';
import { HttpError } from './http-errors';

/** Methods that change nothing; every other one must pass the checks. */
const SAFE_METHODS = new Set(['GET', 'HEAD', 'OPTIONS']);

/** `application/json`, or a `+json` type, with any parameters. */
const JSON_TYPE = /^application\/([\w.-]+\+)?json\s*(;|$)/i;

/**
 * Whether a request from `origin` (its Origin header) may change agents on a gateway reached as `host`
 * (its Host header): no Origin (not a browser, or a same-origin GET), the gateway's own origin (the web
 * page it serves), or an origin CORS allows. `null` (sandboxed frames, file: pages) is nobody's origin.
 */
export function originAllowed(origin: string | undefined, host: string | undefined, corsOrigins: readonly string[] | undefined): boolean {
  if (origin === undefined) return true;
  if (corsOrigins?.includes('*') || corsOrigins?.includes(origin)) return true;
  if (!host) return false;
  try {
    const from = new URL(origin);
    if (from.protocol !== 'http:' && from.protocol !== 'https:') return false;
    // The Host header read under the origin's scheme, so a default port (:80, :443) compares equal.
    return from.host === new URL(`${from.protocol}//${host}`).host;
  } catch {
    return false;
  }
}

export const ORIGIN_REFUSED =
  "This origin may not change agents here: only the gateway's own page and the origins given with --cors-origin (LIVECONTEXT_GATEWAY_CORS_ORIGINS) may.";

/** Whether a request's body is empty by its headers (no length and no chunked body, or a length of 0). */
function emptyBody(headers: Headers): boolean {
  const length = headers.get('content-length');
  return length === null ? !headers.has('transfer-encoding') : /^\s*0\s*$/.test(length);
}

/**
 * The checks above for every state-changing request, except those on `exempt` paths (which check for
 * themselves: /mcp answers in JSON-RPC). An empty JSON body reads as `{}`, so a bodyless action (stop,
 * retry…) is sent with the JSON type and nothing else.
 */
export function guardChanges(corsOrigins: readonly string[] | undefined, exempt: ReadonlySet<string>): MiddlewareHandler<GatewayEnv> {
  return async (c, next) => {
    if (SAFE_METHODS.has(c.req.method) || exempt.has(c.req.path)) return next();
    if (!originAllowed(c.req.header('origin'), c.req.header('host'), corsOrigins)) {
      throw new HttpError(403, 'ORIGIN_NOT_ALLOWED', ORIGIN_REFUSED);
    }
    if (!JSON_TYPE.test(c.req.header('content-type') ?? '')) {
      throw new HttpError(
        415,
        'UNSUPPORTED_MEDIA_TYPE',
        `${c.req.method} requests must say Content-Type: application/json, even without a body (a web page on another site cannot send that type without the gateway's CORS consent).`,
      );
    }
    // Hono reads a body once into its cache (json() parses the cached text): an empty one reads as `{}`.
    if (emptyBody(c.req.raw.headers)) (c.req.bodyCache as Record<string, unknown>).text = Promise.resolve('{}');
    return next();
  };
}
