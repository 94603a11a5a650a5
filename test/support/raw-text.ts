/** Every string in a raw history (or any value read from Temporal), payload data decoded: what a secret must not be found in. */
export function rawText(value: unknown): string {
  if (value instanceof Uint8Array) return Buffer.from(value).toString('utf8');
  if (Array.isArray(value)) return value.map(rawText).join('\n');
  if (value && typeof value === 'object') return Object.values(value).map(rawText).join('\n');
  return String(value);
}
