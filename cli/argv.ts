/**
 * A command's words → its options and positionals. The rules:
 *  - `--` ends the options: every word after it is a positional.
 *  - `-h`/`--help` asks for the command's help wherever options are read.
 *  - A command that takes free text (`send <agent-id> <text…>`) reads options before the text and in a
 *    run at its end (`send A hello --wait`); the words between are text, even when they look like
 *    options (`send A what does -h mean` sends the question).
 * Errors are node:util's parseArgs errors (code ERR_PARSE_ARGS_*), one line each.
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

const HELP = { help: { type: 'boolean', short: 'h' } } as const;

/** `textAt`: the index of the positional where free text starts (1 for `send <agent-id> <text…>`). */
export function parseCommandArgs(args: string[], options: Options, textAt?: number): ParsedArgs {
  const dashes = args.indexOf('--');
  const head = dashes < 0 ? args : args.slice(0, dashes);
  const afterDashes = dashes < 0 ? [] : args.slice(dashes + 1);
  const all = { ...options, ...HELP };

  let optionWords = head;
  let text: string[] = [];
  const start = textAt === undefined ? undefined : positionalIndex(head, all, textAt);
  if (start !== undefined) {
    const end = trailingOptionsStart(head, options, start);
    text = head.slice(start, end);
    optionWords = [...head.slice(0, start), ...head.slice(end)];
  }
  // Help wins over any other mistake on the line (`state --nope --help` shows the help).
  if (parseArgs({ args: optionWords, options: all, allowPositionals: true, strict: false }).values.help === true) {
    return { help: true, positionals: [], values: {} };
  }
  const { positionals, values } = parseArgs({ args: optionWords, options: all, allowPositionals: true, strict: true });
  delete values.help;
  return { help: false, positionals: [...positionals, ...text, ...afterDashes], values: values as Values };
}

/** Where the `n`th positional word is in `args`, reading options as parseArgs does. */
function positionalIndex(args: string[], options: Options, n: number): number | undefined {
  const { tokens } = parseArgs({ args, options, allowPositionals: true, strict: false, tokens: true });
  return tokens.filter((t) => t.kind === 'positional')[n]?.index;
}

/** The first word of the run of the command's own boolean options that ends `args` (after `from`). */
function trailingOptionsStart(args: string[], options: Options, from: number): number {
  const flags = new Set(
    Object.entries(options)
      .filter(([, o]) => o.type === 'boolean')
      .flatMap(([name, o]) => [`--${name}`, ...(o.short ? [`-${o.short}`] : [])]),
  );
  let end = args.length;
  while (end > from + 1 && flags.has(args[end - 1])) end--; // the text keeps at least its first word
  return end;
}
