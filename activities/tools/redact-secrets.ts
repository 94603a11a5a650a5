/**
 * Tool output becomes history, snapshots and server rows, so the worker's known secrets are cut out of
 * it first: values (at least MIN_SECRET_LENGTH characters) of environment variables whose names look
 * secret, their comma-, space- or colon-separated pieces (`LIVECONTEXT_CODEC_KEYS` is `id:key,…`), and
 * passwords inside any variable's `scheme://user:password@host` URL. Each becomes `[redacted $NAME]`.
 * A secret is also found as it appears inside JSON text (`"` and `\`, line breaks of a PEM key or a
 * credentials file escaped; non-ASCII as `\uXXXX`, as Python writes it), and, through
 * `redactSecretsAcross`, split over several texts read as one (an MCP result's text blocks).
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
  for (const { name, value } of secrets) {
    for (const form of secretForms(value)) if (out.includes(form)) out = out.split(form).join(`[redacted $${name}]`);
  }
  return out;
}

/**
 * The ways a secret can be written in text: as it is, and as a JSON string's content — JSON.stringify's
 * escapes, and the same with every non-ASCII character as `\uXXXX` — also JSON inside JSON, up to
 * three levels (a tool's structured result that holds a JSON text that holds the secret). For most
 * secrets (letters, digits, `-_.`) these are all the same, and only one is searched.
 */
export function secretForms(value: string): string[] {
  const forms = new Set([value]);
  let level = value;
  for (let i = 0; i < 3; i++) {
    level = JSON.stringify(level).slice(1, -1);
    forms.add(level);
    forms.add(level.replace(/[\u0080-\uffff]/g, (c) => `\\u${c.charCodeAt(0).toString(16).padStart(4, '0')}`));
  }
  return [...forms];
}

/**
 * Redacts texts that are read one after another (an MCP result's text blocks): a secret split between
 * two of them is found in their concatenation, and cut out of each; its `[redacted $NAME]` goes where it
 * began. Each part keeps its place, so the caller can join them as it likes.
 */
export function redactSecretsAcross(parts: readonly string[], secrets: readonly Secret[] = secretsIn()): string[] {
  const whole = parts.join('');
  const found: Array<{ start: number; end: number; name: string }> = [];
  let taken: Uint8Array | undefined; // characters already inside a found secret (longer secrets come first)
  for (const { name, value } of secrets) {
    for (const form of secretForms(value)) {
      for (let at = whole.indexOf(form); at !== -1; at = whole.indexOf(form, at + form.length)) {
        taken ??= new Uint8Array(whole.length);
        if (taken.subarray(at, at + form.length).includes(1)) continue;
        taken.fill(1, at, at + form.length);
        found.push({ start: at, end: at + form.length, name });
      }
    }
  }
  if (!found.length) return [...parts];
  found.sort((a, b) => a.start - b.start);
  let next = 0; // the first found secret that does not end before the current part
  let offset = 0;
  return parts.map((part) => {
    const from = offset;
    const to = (offset += part.length);
    while (next < found.length && found[next].end <= from) next++;
    let out = '';
    let at = from;
    for (let i = next; i < found.length && found[i].start < to; i++) {
      const f = found[i];
      out += whole.slice(at, f.start > at ? f.start : at);
      if (f.start >= from) out += `[redacted $${f.name}]`;
      at = Math.min(to, f.end);
    }
    return out + whole.slice(at, to);
  });
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
