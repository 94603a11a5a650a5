/**
 * Approval policies as ordered rules over tool names and argument values: the first rule that matches a
 * call decides — `allow` (run it, no person asked), `ask` (a person approves it first), `deny` (never run;
 * the model is told). No rule matching: the agent's `approval` map and the tool's own policy apply, as
 * before rules existed. Held in the agent's config (so carried across continue-as-new, export and fork)
 * and changed at run time by the `setToolRules` update, each change a `tool_rules` entry in history.
 *
 * @example
 * const rules: ToolRule[] = [
 *   { tool: 'read_*', action: 'allow' },
 *   { tool: 'run_command', args: { command: { word: 'rm' } }, action: 'deny', reason: 'no deletions' },
 *   { tool: 'write_*', action: 'ask' },
 * ];
 * matchToolRule(rules, { toolName: 'run_command', arguments: { command: 'rm -rf /' } }); // → rule 2 (deny)
 */
import { z } from 'zod';
import { InputRejectedError } from './errors';
import type { ToolCallRequest } from './entries';
import { matchesToolPattern } from './tool-allowance';

/** At most this many rules per agent: a configuration is carried in every run and snapshot. */
export const MAX_TOOL_RULES = 64;

/**
 * How one argument must look for a rule to match. Its text is the argument itself when it is a string,
 * its JSON otherwise; `equals` compares a plain value (text, number, true/false, null). `word` matches a whole word (`rm` in `rm -rf x`, not in `format`); no regular
 * expressions, so a rule can never make the workflow spin.
 */
export const ArgMatch = z.union([
  z.object({ equals: z.union([z.string().max(200), z.number(), z.boolean(), z.null()]) }).strict(),
  z.object({ contains: z.string().min(1).max(200) }).strict(),
  z.object({ word: z.string().min(1).max(200) }).strict(),
]);
export type ArgMatch = z.infer<typeof ArgMatch>;

export const ToolRule = z
  .object({
    /** A tool name, or a prefix ending in `*` (`github_*`), or `*` for every tool. */
    tool: z.string().min(1).max(128),
    /** Every named argument must match; absent: any arguments. */
    args: z
      .record(z.string().min(1).max(128), ArgMatch)
      .refine((r) => Object.keys(r).length <= 8, 'at most 8 arguments')
      .optional(),
    action: z.enum(['allow', 'ask', 'deny']),
    /** Shown to the model when the rule denies a call, and to the person when it asks. */
    reason: z.string().max(1000).optional(),
  })
  .strict();
export type ToolRule = z.infer<typeof ToolRule>;

export const ToolRules = z.array(ToolRule).max(MAX_TOOL_RULES, `at most ${MAX_TOOL_RULES} rules`);
export type ToolRules = z.infer<typeof ToolRules>;

/** A change of the rules as the `setToolRules` update carries it: the whole list, in order. */
export const ToolRulesChange = z
  .object({
    rules: ToolRules,
    /** Who changed them (recorded). */
    by: z.string().max(200).optional(),
  })
  .strict();
export type ToolRulesChange = z.infer<typeof ToolRulesChange>;

/** Validates a rules change; throws InputRejectedError('BAD_TOOL_RULES') saying what is wrong. */
export function parseToolRulesChange(raw: unknown): ToolRulesChange {
  const parsed = ToolRulesChange.safeParse(raw);
  if (!parsed.success) {
    const why = parsed.error.issues.map((i) => `${i.path.join('.') || 'change'}: ${i.message}`).join('; ');
    throw new InputRejectedError(
      'BAD_TOOL_RULES',
      `Tool rules are {"rules": [{"tool": "name or prefix*", "action": "allow"|"ask"|"deny", "args"?: {"arg": {"word"|"contains": "…"} | {"equals": …}}, "reason"?: "…"}]} (${why}).`,
    );
  }
  return parsed.data;
}

/** The first rule that matches the call, with its 1-based number; undefined when none does. */
export function matchToolRule(
  rules: readonly ToolRule[] | undefined,
  call: Pick<ToolCallRequest, 'toolName' | 'arguments'>,
): { rule: ToolRule; number: number } | undefined {
  if (!rules) return undefined;
  for (let i = 0; i < rules.length; i++) {
    const rule = rules[i];
    if (!matchesToolPattern(rule.tool, call.toolName)) continue;
    const args = rule.args ?? {};
    if (Object.entries(args).every(([name, m]) => argMatches(call.arguments?.[name], m))) return { rule, number: i + 1 };
  }
  return undefined;
}

function argMatches(value: unknown, m: ArgMatch): boolean {
  if (value === undefined) return false;
  if ('equals' in m) return value === m.equals;
  const text = typeof value === 'string' ? value : JSON.stringify(value);
  if ('contains' in m) return text.includes(m.contains);
  return hasWord(text, m.word);
}

/** Whether `word` stands in `text` with no letter, digit or `_` right before or after it. */
function hasWord(text: string, word: string): boolean {
  const isWordChar = (c: string | undefined) => c !== undefined && /[A-Za-z0-9_]/.test(c);
  for (let at = text.indexOf(word); at >= 0; at = text.indexOf(word, at + 1)) {
    if (!isWordChar(text[at - 1]) && !isWordChar(text[at + word.length])) return true;
  }
  return false;
}

/** One rule as a line people read (`deny run_command command~rm`), for the CLI, the page and logs. */
export function describeToolRule(rule: ToolRule): string {
  const args = Object.entries(rule.args ?? {}).map(([name, m]) =>
    'equals' in m ? `${name}=${JSON.stringify(m.equals)}` : 'contains' in m ? `${name}*=${m.contains}` : `${name}~${m.word}`,
  );
  return [rule.action, rule.tool, ...args].join(' ') + (rule.reason ? ` (${rule.reason})` : '');
}

/** The rules after "approve and don't ask again": an `allow` rule for the tool first, unless it is there already. */
export function rememberAllow(rules: readonly ToolRule[] | undefined, toolName: string): ToolRule[] | undefined {
  const current = rules ?? [];
  const first = current[0];
  if (first && first.tool === toolName && first.action === 'allow' && !first.args) return undefined;
  const allow: ToolRule = { tool: toolName, action: 'allow', reason: 'approved once with "don\'t ask again"' };
  return [allow, ...current].slice(0, MAX_TOOL_RULES);
}
