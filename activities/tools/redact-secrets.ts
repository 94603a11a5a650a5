/**
 * Tool output becomes history, snapshots and server rows, so the worker's known secrets are cut out of
 * it first: values (at least MIN_SECRET_LENGTH characters) of environment variables whose names look
 * secret, their comma-, space- or colon-separated pieces (`LIVECONTEXT_CODEC_KEYS` is `id:key,…`), and
 * passwords inside any variable's `scheme://user:password@host` URL. Each becomes `[redacted $NAME]`.
 */
export const MIN_SECRET_LENGTH = 8;
/** `*_KEY`, `*_KEYS`, `*_TOKEN`, `*SECRET*`, `*PASSWORD*`, `*CREDENTIAL*`, `*PRIVATE*`, `*_AUTH*`… */
const SECRET_NAME = /KEY|TOKEN|SECRET|PASSWORD|PASSWD|PASSPHRASE|CREDENTIAL|PRIVATE|(^|_)AUTH|(^|_)PAT($|_)/i;
const URL_PASSWORD = /[a-z][a-z0-9+.-]*:\/\/[^/:@\s]*:([^@\s/]+)@/gi;

export interface Secret {
  name: string;
  value: string;
}

export function looksSecret(name: string): boolean {
  return SECRET_NAME.test(name);
}

/** The secrets in `env`, longest first (so a whole value is replaced before its pieces). */
export function secretsIn(env: Record<string, string | undefined> = process.env): Secret[] {
  const byValue = new Map<string, string>();
  for (const [name, value] of Object.entries(env)) {
    if (!value) continue;
    const candidates = looksSecret(name) ? [value, ...value.split(/[\s,;:]+/)] : [];
    for (const m of value.matchAll(URL_PASSWORD)) candidates.push(m[1]);
    for (const c of candidates) if (c.length >= MIN_SECRET_LENGTH && !byValue.has(c)) byValue.set(c, name);
  }
  return [...byValue].map(([value, name]) => ({ name, value })).sort((a, b) => b.value.length - a.value.length);
}

export function redactSecrets(text: string, secrets: readonly Secret[] = secretsIn()): string {
  let out = text;
  for (const { name, value } of secrets) if (out.includes(value)) out = out.split(value).join(`[redacted $${name}]`);
  return out;
}

/** Redacts the strings inside plain data (metadata, heartbeat details); anything else passes as it is. */
export function redactJson<T>(value: T, secrets: readonly Secret[] = secretsIn()): T {
  if (typeof value === 'string') return redactSecrets(value, secrets) as T;
  if (Array.isArray(value)) return value.map((v: unknown) => redactJson(v, secrets)) as T;
  if (value && typeof value === 'object' && Object.getPrototypeOf(value) === Object.prototype) {
    return Object.fromEntries(Object.entries(value).map(([k, v]) => [k, redactJson(v, secrets)])) as T;
  }
  return value;
}
