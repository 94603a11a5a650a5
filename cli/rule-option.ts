/**
 * `--rule "ACTION TOOL [ARG~WORD | ARG*=TEXT | ARG=VALUE]…"` as a tool rule (agent/tool-rules.ts):
 * `allow read_*`, `ask write_*`, `deny run_command command~rm`. `~` matches a whole word, `*=` a piece of
 * text, `=` the whole value (a number, true/false or null as JSON, else text).
 */
import { type ArgMatch, type ToolRule, ToolRule as ToolRuleSchema } from '../agent/index';
import { UserError } from '../client/connect';

export function rulesOption(values: unknown): ToolRule[] {
  return [values ?? []]
    .flat()
    .filter((v): v is string => typeof v === 'string')
    .map(parseRule);
}

export function parseRule(text: string): ToolRule {
  const [action, tool, ...args] = text.trim().split(/\s+/);
  const matches: Record<string, ArgMatch> = {};
  for (const arg of args) {
    const m = /^([^~*=]+)(~|\*=|=)(.+)$/.exec(arg);
    if (!m) throw new UserError(`A rule's argument is NAME~WORD, NAME*=TEXT or NAME=VALUE, not "${arg}" (in --rule "${text}").`);
    matches[m[1]] = m[2] === '~' ? { word: m[3] } : m[2] === '*=' ? { contains: m[3] } : { equals: scalar(m[3]) };
  }
  const parsed = ToolRuleSchema.safeParse({ action, tool, ...(args.length ? { args: matches } : {}) });
  if (!parsed.success) {
    throw new UserError(`--rule is "allow|ask|deny TOOL [ARG~WORD | ARG*=TEXT | ARG=VALUE]…", e.g. "deny run_command command~rm", not "${text}".`);
  }
  return parsed.data;
}

function scalar(text: string): string | number | boolean | null {
  if (text === 'true' || text === 'false' || text === 'null' || /^-?\d+(\.\d+)?$/.test(text)) return JSON.parse(text) as number | boolean | null;
  return text;
}
