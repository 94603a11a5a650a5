/**
 * `http_request` — opt-in (worker option `httpRequest: { hosts }` or LIVECONTEXT_HTTP_HOSTS): one HTTP
 * request to a host on the worker's allow-list, with the call's idempotency key in an `Idempotency-Key`
 * header (the same on every attempt of the call, so a service that honours it acts once). Each call
 * waits for a person's approval unless the worker's owner turns that off (`approval: false`) or an
 * agent's `approval` config waives it. A host not on the list is refused before anything is sent;
 * redirects are not followed (one to another host would leave the list): the 3xx and its Location come
 * back. The response body is read up to RESPONSE_MAX_BYTES; the executor caps and redacts it as any
 * tool output.
 */
import { z } from 'zod';
import { defineTool } from './define-tool';

/** The header that carries the call's idempotency key (the IETF draft's name, as Stripe and others use it). */
export const IDEMPOTENCY_HEADER = 'Idempotency-Key';
/** Where a worker started without options finds its allow-list: host names, comma- or space-separated. */
export const HTTP_HOSTS_VARIABLE = 'LIVECONTEXT_HTTP_HOSTS';
/** `0` turns approval off for a worker configured by HTTP_HOSTS_VARIABLE. */
export const HTTP_APPROVAL_VARIABLE = 'LIVECONTEXT_HTTP_APPROVAL';
/** More of a body is not read: the model sees at most the executor's cap of it anyway. */
export const RESPONSE_MAX_BYTES = 256 * 1024;
const DEFAULT_TIMEOUT_SECONDS = 30;

export interface HttpRequestOptions {
  /**
   * Hosts the tool may call: `api.example.com` (any port), `localhost:8080` (that port only), or
   * `*.example.com` (its subdomains). Matched case-insensitively against the URL's host.
   */
  hosts: readonly string[];
  /** Whether each call waits for a person's approval (default true). */
  approval?: boolean;
}

/** The options LIVECONTEXT_HTTP_HOSTS (and LIVECONTEXT_HTTP_APPROVAL) give, or undefined when no host is listed (the tool is then not offered). */
export function httpRequestFromEnv(env: Readonly<Record<string, string | undefined>> = process.env): HttpRequestOptions | undefined {
  const hosts = (env[HTTP_HOSTS_VARIABLE] ?? '').split(/[\s,]+/).filter(Boolean);
  return hosts.length ? { hosts, approval: env[HTTP_APPROVAL_VARIABLE] !== '0' } : undefined;
}

/** Whether `url`'s host is on the list (see HttpRequestOptions.hosts). */
export function hostAllowed(url: URL, hosts: readonly string[]): boolean {
  const name = url.hostname.toLowerCase();
  const port = url.port || (url.protocol === 'https:' ? '443' : '80');
  return hosts.some((entry) => {
    const [pattern, wantedPort] = splitHostPort(entry.trim().toLowerCase());
    if (wantedPort !== undefined && wantedPort !== port) return false;
    return pattern.startsWith('*.') ? name.endsWith(pattern.slice(1)) : name === pattern;
  });
}

/** `host:port` (also `[::1]:8080`) as its host and port; a bare host has no port. */
function splitHostPort(entry: string): [string, string | undefined] {
  const m = /^(\[[^\]]+\]|[^:]+)(?::(\d+))?$/.exec(entry);
  return m ? [m[1], m[2]] : [entry, undefined];
}

const Parameters = z.object({
  method: z.enum(['GET', 'HEAD', 'POST', 'PUT', 'PATCH', 'DELETE']).default('GET'),
  url: z.string().min(1).describe('Absolute http(s) URL; its host must be on the allow-list'),
  headers: z.record(z.string(), z.string()).optional().describe('Request headers'),
  body: z
    .union([z.string(), z.record(z.string(), z.unknown()), z.array(z.unknown())])
    .optional()
    .describe('Request body: text, or JSON (sent with content-type application/json)'),
  timeout_seconds: z.number().int().positive().max(300).default(DEFAULT_TIMEOUT_SECONDS).describe('Give up after this long'),
});
type Parameters = z.infer<typeof Parameters>;

/** The URL as a http(s) URL on the list, or an error that says what to fix. */
function checkedUrl(raw: string, hosts: readonly string[]): URL {
  let url: URL;
  try {
    url = new URL(raw);
  } catch {
    throw new Error(`"${raw}" is not an absolute URL; give one such as https://${hosts[0] ?? 'host'}/path.`);
  }
  if (url.protocol !== 'http:' && url.protocol !== 'https:') throw new Error(`Only http and https URLs can be requested, not ${url.protocol}`);
  if (!hostAllowed(url, hosts)) {
    throw new Error(`The host ${url.host} is not on this worker's allow-list for http_request, so nothing was sent. Allowed: ${hosts.join(', ')}.`);
  }
  return url;
}

export function createHttpRequestTool(options: HttpRequestOptions) {
  const hosts = [...options.hosts];
  if (hosts.length === 0) throw new Error('http_request needs at least one allowed host (HttpRequestOptions.hosts).');
  return defineTool({
    name: 'http_request',
    description:
      `Send one HTTP request and get the status, main headers and body (capped). Only these hosts can be called: ${hosts.join(', ')}. ` +
      'The call carries an Idempotency-Key header that stays the same if the call is retried.',
    parameters: Parameters,
    timeoutMs: 6 * 60 * 1000,
    // Refused hosts ask nobody: the call fails at once, saying why.
    needsApproval: options.approval === false ? false : ({ method, url }: Parameters) => (isAllowed(url, hosts) ? `http_request ${method} ${url}` : false),
    async execute({ method, url: raw, headers = {}, body, timeout_seconds }, ctx) {
      const url = checkedUrl(raw, hosts);
      const sent = new Headers(headers);
      sent.set(IDEMPOTENCY_HEADER, ctx.idempotencyKey); // the call's own, whatever the model wrote
      let payload: string | undefined;
      if (body !== undefined && method !== 'GET' && method !== 'HEAD') {
        payload = typeof body === 'string' ? body : JSON.stringify(body);
        if (typeof body !== 'string' && !sent.has('content-type')) sent.set('content-type', 'application/json');
      }
      const signal = AbortSignal.any([ctx.signal, AbortSignal.timeout(timeout_seconds * 1000)]);
      let response: Response;
      try {
        response = await fetch(url, { method, headers: sent, body: payload, redirect: 'manual', signal });
      } catch (err) {
        const why = signal.aborted && !ctx.signal.aborted ? `no answer within ${timeout_seconds} s` : describeFetchError(err);
        throw new Error(`${method} ${url.href} failed: ${why}`);
      }
      const { text, bytes, cut } = await readBody(response, signal);
      const shown = [
        `HTTP ${response.status} ${response.statusText}`.trim(),
        ...['content-type', 'location', 'retry-after'].flatMap((h) => (response.headers.get(h) ? [`${h}: ${response.headers.get(h)}`] : [])),
        '',
        text + (cut ? `\n[body cut: more than ${RESPONSE_MAX_BYTES} bytes; ${bytes} read]` : ''),
      ].join('\n');
      if (response.status >= 400) throw new Error(`${method} ${url.href} answered ${shown}`);
      return { text: shown, metadata: { http_status: response.status, body_bytes: bytes } };
    },
  });
}

function isAllowed(raw: string, hosts: readonly string[]): boolean {
  try {
    return hostAllowed(new URL(raw), hosts);
  } catch {
    return false;
  }
}

/** The body up to RESPONSE_MAX_BYTES, as text (binary content is described, not shown). */
async function readBody(response: Response, signal: AbortSignal): Promise<{ text: string; bytes: number; cut: boolean }> {
  if (!response.body) return { text: '', bytes: 0, cut: false };
  const reader = response.body.getReader();
  const chunks: Uint8Array[] = [];
  let bytes = 0;
  let cut = false;
  try {
    while (!signal.aborted) {
      const { done, value } = await reader.read();
      if (done) break;
      chunks.push(value);
      bytes += value.length;
      if (bytes > RESPONSE_MAX_BYTES) {
        cut = true;
        break;
      }
    }
  } finally {
    await reader.cancel().catch(() => undefined);
  }
  const data = Buffer.concat(chunks).subarray(0, RESPONSE_MAX_BYTES);
  const type = response.headers.get('content-type') ?? '';
  const textual = type === '' || /^text\/|json|xml|javascript|x-www-form-urlencoded|yaml|csv/i.test(type);
  return { text: textual ? data.toString('utf8') : `[${bytes}${cut ? '+' : ''} bytes of ${type}, not shown]`, bytes, cut };
}

/** undici's "fetch failed" hides the reason in its cause (ECONNREFUSED, ENOTFOUND…). */
function describeFetchError(err: unknown): string {
  const cause = (err as { cause?: { code?: string; message?: string } })?.cause;
  if (cause?.code) return `${cause.code}${cause.message ? ` (${cause.message})` : ''}`;
  return err instanceof Error ? err.message : String(err);
}
