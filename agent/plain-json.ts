/**
 * Whether a value is plain JSON — strings, finite numbers, booleans, null, arrays and plain objects of
 * them, as JSON.parse makes —, checked without zod: the entries' JsonValue schema (entries.ts) lets such
 * a value pass at once. Its zod union runs through every level of a value and costs an entry's metadata
 * ~20 µs, on every append of every turn; what this does not call plain gets the union's own verdict.
 * Conservative: true only where the union surely accepts the value.
 */
export function isPlainJson(value: unknown): boolean {
  switch (typeof value) {
    case 'string':
    case 'boolean':
      return true;
    case 'number':
      return Number.isFinite(value);
    case 'object': {
      if (value === null) return true;
      if (Array.isArray(value)) {
        for (let i = 0; i < value.length; i++) if (!isPlainJson(value[i])) return false;
        return true;
      }
      // Object.prototype of any realm (the workflow sandbox has its own), or no prototype.
      const proto = Object.getPrototypeOf(value) as object | null;
      if (proto !== null && Object.getPrototypeOf(proto) !== null) return false;
      if (Object.getOwnPropertySymbols(value).length) return false;
      for (const key of Object.keys(value)) {
        if (key === '__proto__' || !isPlainJson((value as Record<string, unknown>)[key])) return false;
      }
      return true;
    }
    default:
      return false;
  }
}
