/**
 * What the chat says about a tool call whose outcome is unknown (its worker died mid-run, so whether
 * its effect happened is not known), and how it reads `/resolve`: the words of `livecontext resolve`.
 */
import type { AgentStatus } from '../workflows/messages';

type UnknownOutcome = NonNullable<AgentStatus['unknownOutcomes']>[number];

/** The line that says a call waits on its unknown outcome, and the command that resolves it. */
export function unknownOutcomeLine(u: UnknownOutcome): string {
  const why = u.reason.split(';')[0]; // what happened; the rest says why it was not run again
  return `  ! ${u.toolName} ${u.arguments}: outcome unknown (${why}): /resolve ${u.toolCallId} --done TEXT | --failed TEXT | --retry`;
}

/** Said once per time a call became unknown: a call run again by --retry may become unknown again. */
export function unknownKey(u: UnknownOutcome): string {
  return `unknown ${u.toolCallId} ${u.since}`;
}

/** `--done TEXT`, `--failed TEXT` or `--retry` (the words after /resolve and its id), or undefined for anything else. */
export function resolution(words: string[]): { done: string } | { failed: string } | { retry: true } | undefined {
  const [option, ...rest] = words;
  const text = rest.join(' ').trim();
  if (option === '--retry' && !text) return { retry: true };
  if (option === '--done' && text) return { done: text };
  if (option === '--failed' && text) return { failed: text };
  return undefined;
}
