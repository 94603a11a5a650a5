/**
 * The marker a worker puts in place of a payload it could not decode (worker/codec/undecodable-guard):
 * `{ "$livecontextUndecodable": "<why>" }`. Workflow code asks `undecodableReason` to tell it apart.
 */
export const UNDECODABLE_KEY = '$livecontextUndecodable';

/** Why the payload behind `value` could not be decoded, or undefined when it is an ordinary value. */
export function undecodableReason(value: unknown): string | undefined {
  if (!value || typeof value !== 'object' || !(UNDECODABLE_KEY in value)) return undefined;
  return String((value as Record<string, unknown>)[UNDECODABLE_KEY]);
}
