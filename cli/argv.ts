/**
 * A command's words → its options and positionals. One rule for every command:
 *  - Options may come anywhere: before, between or after the positional words.
 *  - A word that starts with `-` is an option, and one the command does not have is an error; a lone
 *    `-` is a positional (`send A -` reads the text from stdin).
 *  - `--` ends the options: every word after it is a positional, whatever it looks like.
 *  - `-h`/`--help` asks for the command's help.
 *  - A command takes so many positionals; a word more is an error (unquoted text), never dropped.
 *  - A command that takes free text (`send <agent-id> <text…>`): the text is its words, and an option
 *    among them (`send A what does --wait do`) is refused, not sent and not taken: options go before or
 *    after the text, and text with words that start with `-` goes after `--`.
 * Errors are ArgvError or node:util's parseArgs errors (code ERR_PARSE_ARGS_*), one line each.
 */
import { parseArgs } from 'node:util';

export type Options = NonNullable<NonNullable<Parameters<typeof parseArgs>[0]>['options']>;
/** An option's value: a string, a flag, or every value of an option that may be repeated (`multiple`). */
export type Values = Record<string, string | boolean | string[] | undefined>;

export interface ParsedArgs {
  help: boolean;
  positionals: string[];
  values: Values;
}

/** What the words of a command may be. */
export interface ArgsSpec {
  options?: Options;
  /** The index of the positional where free text starts (1 for `send <agent-id> <text…>`); the text takes every word after. */
  textAt?: number;
  /** The most positionals the command takes (without free text); default: no limit. */
  maxPositionals?: number;
}

/** A mistake on the command line that parseArgs does not know of (code ERR_PARSE_ARGS_* like its own). */
export class ArgvError extends Error {
  readonly code = 'ERR_PARSE_ARGS_LIVECONTEXT';
}

/** What to do with a word that starts with `-` but is meant as text. */
export const DASH_HINT = 'put -- before text that has words starting with -';

const HELP = { help: { type: 'boolean', short: 'h' } } as const;

export function parseCommandArgs(args: string[], spec: ArgsSpec = {}): ParsedArgs {
  const dashes = args.indexOf('--');
  const head = dashes < 0 ? args : args.slice(0, dashes);
  const afterDashes = dashes < 0 ? [] : args.slice(dashes + 1);
  const all = { ...spec.options, ...HELP };

  const { tokens } = parseArgs({ args: head, options: all, allowPositionals: true, strict: false, tokens: true });
  if (spec.textAt !== undefined) refuseOptionsInText(tokens, spec.textAt);
  // Help wins over any other mistake on the line (`state --nope --help` shows the help).
  if (tokens.some((t) => t.kind === 'option' && t.name === 'help')) return { help: true, positionals: [], values: {} };
  let parsed;
  try {
    parsed = parseArgs({ args: head, options: all, allowPositionals: true, strict: true });
  } catch (err) {
    const code = (err as { code?: string }).code;
    if (spec.textAt !== undefined && code === 'ERR_PARSE_ARGS_UNKNOWN_OPTION') throw new ArgvError(`${firstSentence(err)} (${DASH_HINT})`);
    throw err;
  }
  const { positionals, values } = parsed;
  delete values.help;
  const allPositionals = [...positionals, ...afterDashes];
  const extra = spec.textAt === undefined && spec.maxPositionals !== undefined ? allPositionals[spec.maxPositionals] : undefined;
  if (extra !== undefined) throw new ArgvError(`Unexpected word "${extra}" (quote a value that has spaces)`);
  return { help: false, positionals: allPositionals, values: values as Values };
}

/** An option word between two words of the text: the person meant one or the other, and cannot be guessed. */
function refuseOptionsInText(tokens: ReturnType<typeof parseArgs>['tokens'] & object, textAt: number): void {
  const text = tokens.filter((t) => t.kind === 'positional').slice(textAt);
  if (text.length < 2) return;
  const [first, last] = [text[0].index, text[text.length - 1].index];
  const inside = tokens.find((t) => t.kind === 'option' && t.index > first && t.index < last);
  if (inside?.kind === 'option') {
    throw new ArgvError(`"${inside.rawName}" is among the words of the text: put options before or after the text, and ${DASH_HINT}`);
  }
}

const firstSentence = (err: unknown) => (err as Error).message.split('. ')[0].replace(/\.$/, '');
