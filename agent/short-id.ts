/**
 * Ids derived from other ids, kept short enough for every field they go into. A sub-agent's id is its
 * parent's id and a suffix, and its first input names the parent as its sender (at most 200 characters):
 * a long parent id would make both invalid. Pure and deterministic (workflow code derives them).
 *
 * @example
 * shortenId('a'.repeat(300), '--researcher-2-1') // 'aaa…a~3f1c0d9e8b7a6954--researcher-2-1', 200 characters
 */

/** The longest derived id or sender: AgentInput's `sender` limit, well within Temporal's 1,000 for ids. */
export const MAX_DERIVED_ID_CHARS = 200;

/** 16 hex digits of FNV-1a (64-bit) over the UTF-16 code units of `text`. */
export function idHash(text: string): string {
  let h = 0xcbf29ce484222325n;
  for (let i = 0; i < text.length; i++) {
    h ^= BigInt(text.charCodeAt(i));
    h = (h * 0x100000001b3n) & 0xffffffffffffffffn;
  }
  return h.toString(16).padStart(16, '0');
}

/**
 * `base + tail` when that is at most `max` characters; else as much of `base` as fits, `~`, a hash of
 * the whole of `base + tail` (so two long ids that share their start still differ), and `tail`.
 */
export function shortenId(base: string, tail = '', max = MAX_DERIVED_ID_CHARS): string {
  const full = base + tail;
  if (full.length <= max) return full;
  const hash = `~${idHash(full)}`;
  const room = max - hash.length - tail.length;
  // A tail too long to keep is hashed with the rest (it is part of `full`).
  if (room < 0) return clip(full, max - hash.length) + hash;
  return clip(base, room) + hash + tail;
}

/** The first `n` characters, without a lone high surrogate at the end. */
function clip(text: string, n: number): string {
  return text.slice(0, n).replace(/[\uD800-\uDBFF]$/, '');
}
