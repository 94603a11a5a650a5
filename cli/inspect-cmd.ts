/**
 * `livecontext inspect AGENT --call SEQ`: the request model call SEQ sent, rendered again from history by
 * a worker and checked against the call's fingerprint (client/inspect-call.ts). The body goes to stdout
 * (or the whole answer with --json); what makes it uncertain goes to stderr as warnings.
 */
import { connectAgents, UserError } from '../client/connect';
import { type InspectedCall, shortened } from '../client/inspect-call';
import type { Values } from './argv';
import { terminalJson, terminalText } from './terminal-text';

export async function inspectCmd(agentId: string, v: Values) {
  const call = typeof v.call === 'string' ? v.call : undefined;
  if (call === undefined) throw new UserError('Which call? --call SEQ names it by the seq of its model_output entry (`livecontext history` shows them).');
  const seq = Number(call);
  if (!call.trim() || !Number.isSafeInteger(seq) || seq < 1)
    throw new UserError(`--call takes the seq of a model_output entry, a whole number of at least 1, not "${call}".`);
  const { agents } = await connectAgents();
  const inspected = await agents.inspectCall(agentId, seq);
  const shown = v.short ? shortened(inspected) : inspected;
  for (const w of inspected.warnings) console.error(terminalText(`livecontext: warning: ${w}`));
  if (v.json) {
    console.log(terminalJson(shown));
    return;
  }
  console.log(terminalText(summary(inspected)));
  if (shown.request) console.log(terminalJson(shown.request.body));
}

function summary(c: InspectedCall): string {
  const f = c.recorded ?? c.rendered;
  const lines = [`Model call #${c.seq} of ${c.agentId}: ${f?.model ?? '?'}${c.request ? `, ${c.request.rendering}` : ''}`];
  if (f) {
    const range = f.first_seq !== undefined ? `entries #${f.first_seq}–#${f.last_seq}` : 'no entries';
    const budget = f.budget !== undefined ? `, input budget ${f.budget} tokens${f.window ? ` (window ${f.window})` : ''}` : '';
    const trimmed = f.dropped ? `, ${f.dropped} message(s) trimmed` : '';
    const compaction = f.compaction_seq !== undefined ? `, summary of compaction #${f.compaction_seq}` : '';
    const archive = f.segments ? `, ${f.segments} archived segment(s) read` : '';
    lines.push(`Context: ${range} (bound #${f.upto_seq})${budget}${trimmed}${compaction}${archive}; ~${f.tokens} tokens estimated; ${f.tools ?? 0} tool(s)`);
  }
  if (c.reproduced) lines.push(`sha256 ${c.sha256}: matches the call's fingerprint — this is the request as it was sent.`);
  else if (c.sha256) lines.push(`sha256 ${c.sha256}: NOT the recorded ${c.recorded?.sha256 ?? '(none)'} — see the warnings.`);
  else lines.push('No request could be rendered — see the warnings.');
  return lines.join('\n');
}
