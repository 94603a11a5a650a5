/**
 * A fingerprint of what an input asks (its sections, attachments and answer schema), so that an agent
 * can tell a redelivery of an input (same idempotency key, same input: taken once) from a key used again
 * for another input (refused, saying so). Pure and deterministic: the agent workflow computes it. Not a
 * security measure (nothing is kept secret by it), only a check that two inputs are the same; the sender
 * is left out, so a person who redelivers a service's input by hand is not refused.
 */
import type { ParsedInput } from './input';

/** cyrb53 (a public-domain 53-bit string hash) with a seed. */
function cyrb53(text: string, seed: number): number {
  let h1 = 0xdeadbeef ^ seed;
  let h2 = 0x41c6ce57 ^ seed;
  for (let i = 0; i < text.length; i++) {
    const ch = text.charCodeAt(i);
    h1 = Math.imul(h1 ^ ch, 2654435761);
    h2 = Math.imul(h2 ^ ch, 1597334677);
  }
  h1 = Math.imul(h1 ^ (h1 >>> 16), 2246822507) ^ Math.imul(h2 ^ (h2 >>> 13), 3266489909);
  h2 = Math.imul(h2 ^ (h2 >>> 16), 2246822507) ^ Math.imul(h1 ^ (h1 >>> 13), 3266489909);
  return 4294967296 * (2097151 & h2) + (h1 >>> 0);
}

/** JSON with object keys in order, so that the same value always gives the same text. */
function canonical(value: unknown): string {
  if (Array.isArray(value)) return `[${value.map(canonical).join(',')}]`;
  if (value && typeof value === 'object') {
    const entries = Object.entries(value as Record<string, unknown>).filter(([, v]) => v !== undefined);
    return `{${entries
      .sort(([a], [b]) => (a < b ? -1 : a > b ? 1 : 0))
      .map(([k, v]) => `${JSON.stringify(k)}:${canonical(v)}`)
      .join(',')}}`;
  }
  return JSON.stringify(value) ?? 'null';
}

/** The fingerprint of a parsed input (two 53-bit hashes, hex): equal for the same input, whoever sends it. */
export function inputFingerprint(input: Pick<ParsedInput, 'sections' | 'attachments' | 'responseSchema'>): string {
  const text = canonical({ sections: input.sections, attachments: input.attachments ?? [], responseSchema: input.responseSchema ?? null });
  return `${cyrb53(text, 1).toString(16)}${cyrb53(text, 2).toString(16)}`;
}

/**
 * Whether raw input names an idempotency key (before it is parsed): only such an input keeps its
 * fingerprint, so the workflow asks for IDEMPOTENCY_PRINTS_CHANGE only then (most inputs have none).
 */
export function hasIdempotencyKey(raw: unknown): boolean {
  return typeof raw === 'object' && raw !== null && typeof (raw as { idempotencyKey?: unknown }).idempotencyKey === 'string';
}
