/**
 * What an agent id may be, checked in one place for every door that names a new agent (AgentClient's
 * start and restore, so the CLI, the chat and schedules; the REST API's paths and bodies): what Temporal
 * accepts as a workflow id, kept short and printable. An id is printed by `list`, shown on the web page and
 * in logs, so it holds no control characters (an ESC would drive the terminal that prints it), no text
 * direction overrides, no lone surrogate (not valid UTF-8: Temporal cannot store it), and no spaces or
 * slashes (it is a path segment).
 */
import { z } from 'zod';
import { InputRejectedError } from './errors';

export const AGENT_ID_MAX = 255;

/** Why the characters of `id` cannot make an agent id (its length aside), or null when they can. */
function characterProblem(id: string): string | null {
  // First: a lone surrogate is not a character (not UTF-8: Temporal cannot store it, a terminal cannot show it).
  if (/\p{Cs}/u.test(id)) return 'an agent id is valid Unicode (this one has a lone surrogate)';
  if (/[\p{Cc}\u2028\u2029\u200E\u200F\u202A-\u202E\u2066-\u2069]/u.test(id))
    return 'an agent id has no control characters (such as NUL, ESC or text direction marks)';
  if (/[\s/\\]/.test(id)) return 'an agent id has no spaces or slashes';
  return null;
}

/** Why `id` cannot be an agent id, or null when it can. */
export function agentIdProblem(id: string): string | null {
  if (id.length === 0) return 'an agent id is not empty';
  if (id.length > AGENT_ID_MAX) return `an agent id has at most ${AGENT_ID_MAX} characters`;
  return characterProblem(id);
}

/**
 * An id in double quotes with everything a terminal would act on escaped as `\uXXXX`: JSON escapes C0
 * controls and lone surrogates; DEL, C1 controls and direction marks are escaped here too.
 */
export function quoteId(id: string): string {
  return JSON.stringify(id).replace(
    /[\u007f-\u009f\u2028\u2029\u200e\u200f\u202a-\u202e\u2066-\u2069]/g,
    (c) => `\\u${c.charCodeAt(0).toString(16).padStart(4, '0')}`,
  );
}

/** Throws InputRejectedError `BAD_AGENT_ID` saying why `id` cannot be an agent id. */
export function checkAgentId(id: string): void {
  const problem = typeof id === 'string' ? agentIdProblem(id) : 'an agent id is a string';
  if (problem) throw new InputRejectedError('BAD_AGENT_ID', `${quoteId(String(id))} cannot be an agent id: ${problem}.`);
}

/** An agent id in a schema (the REST API's paths and bodies), with the same rules. */
export const AgentId = z
  .string()
  .min(1)
  .max(AGENT_ID_MAX)
  .superRefine((id, ctx) => {
    const problem = characterProblem(id);
    if (problem) ctx.addIssue({ code: 'custom', message: problem });
  });
