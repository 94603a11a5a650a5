/**
 * Regular expressions in a typed answer's schema that can backtrack catastrophically, refused by the
 * client that would send them (so also by the gateway and the CLI, which send through it). The worker
 * checks answers against a schema's patterns in a thread with a time limit (activities/typed-answer-check.ts),
 * so a pattern that gets past this check cannot freeze it, but the turn would still end in an error:
 * this says so before anything is sent. The test is safe-regex2's (star height: a repetition inside a
 * repetition, such as `(a+)+`, or more than 25 repetitions), which also refuses some patterns that
 * would have been harmless (`^(\d+,)*\d+$`): rewriting those is cheap, a frozen check is not.
 */
import safeRegex from 'safe-regex2';
import { type AgentInput, InputRejectedError, schemaPatterns } from '../agent/index';

/** The patterns of `schema` that safe-regex2 finds unsafe (those that do not compile are left to the schema check). */
export function unsafePatterns(schema: unknown): string[] {
  return [...new Set(schemaPatterns(schema))].filter((pattern) => compiles(pattern) && !safeRegex(pattern));
}

/** Throws InputRejectedError UNSAFE_PATTERN when the input's response schema has an unsafe pattern. */
export function refuseUnsafePatterns(input: Pick<AgentInput, 'responseSchema'>): void {
  const unsafe = input.responseSchema ? unsafePatterns(input.responseSchema.schema) : [];
  if (unsafe.length) throw new InputRejectedError('UNSAFE_PATTERN', unsafePatternMessage(unsafe));
}

export function unsafePatternMessage(unsafe: readonly string[]): string {
  const shown = unsafe
    .slice(0, 3)
    .map((p) => JSON.stringify(p.length > 80 ? `${p.slice(0, 80)}…` : p))
    .join(', ');
  return (
    `The response schema's pattern ${shown} can backtrack catastrophically (a repetition inside a repetition such as (a+)+, or over 25 repetitions): ` +
    'checking an answer against it could take minutes. Rewrite it without nested repetition (e.g. ^a+$ for ^(a+)+$), or leave the pattern out.'
  );
}

function compiles(pattern: string): boolean {
  try {
    new RegExp(pattern);
    return true;
  } catch {
    return false;
  }
}
