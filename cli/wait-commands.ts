/** `livecontext policy` (an agent's tool rules) and `livecontext answer` (one of its waits), over AgentClient. */
import { describeToolRule } from '../agent/index';
import { UserError, connectAgents } from '../client/connect';
import type { Values } from './argv';
import { rulesOption } from './rule-option';
import { terminalJson, terminalText } from './terminal-text';

const show = (line: string) => console.log(terminalText(line));

/** Shows the agent's tool rules; `--rule` (repeated, in order) replaces them, `--clear` removes them. */
export async function policyCmd(agentId: string, v: Values) {
  const rules = rulesOption(v.rule);
  if (rules.length && v.clear) throw new UserError('Give --rule or --clear, not both.');
  const { agents } = await connectAgents();
  if (!rules.length && !v.clear) {
    const current = await agents.toolRules(agentId);
    if (v.json) return console.log(terminalJson({ rules: current }));
    if (!current.length) return show(`"${agentId}" has no tool rules: each tool's own approval policy applies.`);
    current.forEach((r, i) => show(`${i + 1}. ${describeToolRule(r)}`));
    return;
  }
  const set = await agents.setToolRules(agentId, rules, { by: process.env.USER ?? 'cli' });
  if (v.json) return console.log(terminalJson(set));
  show(`Tool rules of "${agentId}" set (history entry #${set.seq}): ${set.rules.length ? set.rules.map(describeToolRule).join('; ') : 'none'}.`);
}

/**
 * Answers one of the agent's waits (`livecontext state` lists them): `--approve` / `--deny [--reason]`
 * (`--remember`: don't ask again for this tool), `--text` for a question, `--done` / `--failed` / `--retry`
 * for an unknown outcome, `--accept JSON` / `--decline` / `--cancel` for an MCP server's question
 * (elicitation). Without an answer, lists the open waits.
 */
export async function answerCmd(agentId: string, waitId: string | undefined, v: Values) {
  const { agents } = await connectAgents();
  if (!waitId) {
    const waits = (await agents.state(agentId)).waits ?? [];
    if (v.json) return console.log(terminalJson({ waits }));
    if (!waits.length) return show(`"${agentId}" waits on nothing.`);
    for (const w of waits)
      show(
        `${w.waitId}  ${w.kind}${w.toolName ? ` ${w.toolName} ${w.arguments ?? ''}` : ''}${w.question ? ` "${w.question}"` : ''}${w.reason ? ` (${w.reason})` : ''}${w.requestedSchema ? ` fields: ${fieldsOf(w.requestedSchema)}` : ''}`,
      );
    return;
  }
  const str = (name: string) => (typeof v[name] === 'string' ? (v[name] as string) : undefined);
  const given = [v.approve === true, v.deny === true, str('text') !== undefined, str('done') !== undefined, str('failed') !== undefined, v.retry === true];
  given.push(str('accept') !== undefined, v.decline === true, v.cancel === true);
  if (given.filter(Boolean).length !== 1)
    throw new UserError('Give one answer: --approve, --deny, --text TEXT, --done TEXT, --failed TEXT, --retry, --accept JSON, --decline or --cancel.');
  const elicited =
    str('accept') !== undefined
      ? { action: 'accept' as const, content: contentOf(str('accept')!) }
      : v.decline
        ? { action: 'decline' as const }
        : v.cancel
          ? { action: 'cancel' as const }
          : undefined;
  const answer =
    elicited ??
    (v.approve === true || v.deny === true
      ? { approved: v.approve === true, ...(str('reason') ? { reason: str('reason') } : {}), ...(v.remember ? { remember: true } : {}) }
      : str('text') !== undefined
        ? { text: str('text')! }
        : str('done') !== undefined
          ? { done: str('done')! }
          : str('failed') !== undefined
            ? { failed: str('failed')! }
            : { retry: true as const });
  const r = await agents.answerWait(agentId, waitId, answer, { door: 'cli', by: process.env.USER ?? 'cli' });
  if (v.json) return console.log(terminalJson({ waitId: r.waitId, kind: r.kind, ...(r.inputSeq ? { inputSeq: r.inputSeq } : {}) }));
  show(`Answered ${r.waitId}${r.inputSeq ? ` (input #${r.inputSeq})` : ''}.`);
}

/** `--accept`'s JSON object: the content answering an MCP server's question. */
function contentOf(json: string): Record<string, unknown> {
  let value: unknown;
  try {
    value = JSON.parse(json);
  } catch (err) {
    throw new UserError(`--accept takes a JSON object of the fields asked for: ${(err as Error).message}`);
  }
  if (typeof value !== 'object' || value === null || Array.isArray(value))
    throw new UserError('--accept takes a JSON object of the fields asked for, such as \'{"name": "Ana"}\'.');
  return value as Record<string, unknown>;
}

/** The fields an MCP server's question asks for, `name*` when required. */
function fieldsOf(schema: Record<string, unknown>): string {
  const required = Array.isArray(schema.required) ? schema.required : [];
  const props = typeof schema.properties === 'object' && schema.properties !== null ? Object.keys(schema.properties) : [];
  return props.map((p) => `${p}${required.includes(p) ? '*' : ''}`).join(', ') || '(none)';
}
