/**
 * Calls to the gateway: JSON over fetch with the bearer token this browser keeps (localStorage), and
 * one place that notices a 401 so the page can ask for a token.
 */

const TOKEN_KEY = 'livecontext.token';

export const token = {
  get: () => localStorage.getItem(TOKEN_KEY) ?? '',
  set: (value) => (value ? localStorage.setItem(TOKEN_KEY, value) : localStorage.removeItem(TOKEN_KEY)),
};

/** An error answer of the gateway: its HTTP status and `{ error: { code, message } }`. */
export class ApiError extends Error {
  constructor(status, code, message) {
    super(message);
    this.name = 'ApiError';
    this.status = status;
    this.code = code;
  }
}

let unauthorized = () => {};
/** `fn` runs whenever the gateway answers 401 (no token, or a wrong one). */
export function onUnauthorized(fn) {
  unauthorized = fn;
}

/** Request headers with the token, when there is one. */
export function authHeaders(extra = {}) {
  const headers = { ...extra };
  const t = token.get();
  if (t) headers.Authorization = `Bearer ${t}`;
  return headers;
}

/** Turns a failed response into an ApiError (and reports a 401). */
export async function failure(res) {
  const text = await res.text().catch(() => '');
  let body;
  try {
    body = JSON.parse(text);
  } catch {
    body = undefined;
  }
  if (res.status === 401) unauthorized();
  return new ApiError(res.status, body?.error?.code ?? `HTTP_${res.status}`, body?.error?.message ?? (text.slice(0, 200) || `HTTP ${res.status}`));
}

/**
 * One JSON call; resolves to the parsed body, throws ApiError on an error status. Every call that
 * changes something sends a JSON body (`{}` when it has nothing to say): the gateway refuses changes of
 * any other type.
 */
export async function api(method, path, body, headers = {}) {
  if (body === undefined && !['GET', 'HEAD'].includes(method.toUpperCase())) body = {};
  const res = await fetch(path, {
    method,
    headers: authHeaders(body === undefined ? headers : { 'Content-Type': 'application/json', ...headers }),
    body: body === undefined ? undefined : JSON.stringify(body),
    cache: 'no-store',
  });
  if (!res.ok) throw await failure(res);
  const text = await res.text();
  return text ? JSON.parse(text) : undefined;
}

/** `/agents/<id>` with the id escaped. */
export const agentPath = (agentId, rest = '') => `/agents/${encodeURIComponent(agentId)}${rest}`;

/** An id for a request the page may repeat (a send after a network error must not run twice). */
export function requestId() {
  return globalThis.crypto?.randomUUID?.() ?? `${Date.now().toString(36)}-${Math.random().toString(36).slice(2, 12)}`;
}
