/**
 * Canonical JSON: object keys sorted at every level, no spaces, `undefined` members left out (as
 * JSON.stringify does). A segment's hash is taken over it, so the same entries hash the same whoever
 * wrote them and whatever order their keys came in (an entry parsed again may list its keys in another order).
 */
export function canonicalJson(value: unknown): string {
  if (value === null || typeof value !== 'object') return JSON.stringify(value) ?? 'null';
  if (Array.isArray(value)) return `[${value.map((v) => (v === undefined || typeof v === 'function' ? 'null' : canonicalJson(v))).join(',')}]`;
  const record = value as Record<string, unknown>;
  const keys = Object.keys(record)
    .filter((k) => record[k] !== undefined && typeof record[k] !== 'function')
    .sort();
  return `{${keys.map((k) => `${JSON.stringify(k)}:${canonicalJson(record[k])}`).join(',')}}`;
}
