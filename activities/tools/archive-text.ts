/**
 * What `recall` and `expand` show the model: matches with their seq, and entries rendered as readable
 * text, bounded so that one call never floods the context, saying how to ask for the rest.
 */
import type { HistoryEntry } from '../../agent/index';
import type { RecallMatch } from '../../common/archive/index';

/** At most this many entries per `expand` call… */
export const EXPAND_MAX_ENTRIES = 40;
/** …and about this many characters. */
export const EXPAND_MAX_CHARS = 30_000;

const KIND_LABELS: Record<string, string> = {
  model_input: 'input',
  model_output: 'model',
  tool_results: 'tool results',
  system_instruction: 'system instruction',
  widget_write: 'widget write',
  turn_end: 'turn end',
  tool_rules: 'tool rules',
  a2a_push: 'A2A push',
};

function label(kind: string): string {
  return KIND_LABELS[kind] ?? kind;
}

export function recallText(query: string, matches: readonly RecallMatch[]): string {
  if (matches.length === 0) {
    return `Nothing earlier in this conversation matches "${query}". Recall matches whole words (a word of 4 or more letters also finds longer words it begins); try other words, or fewer.`;
  }
  const lines = [`${matches.length} ${matches.length === 1 ? 'entry matches' : 'entries match'} "${query}" (most words matched first, then newest):`];
  for (const m of matches) lines.push('', `#${m.seq} · ${label(m.kind)} · ${m.timestamp}`, m.text);
  const first = matches[0].seq;
  lines.push('', `To read an entry in full with what came around it: expand({"fromSeq": ${Math.max(1, first - 2)}, "toSeq": ${first + 2}}).`);
  return lines.join('\n');
}

/**
 * The entries of `fromSeq`…`toSeq` that fit (EXPAND_MAX_ENTRIES, EXPAND_MAX_CHARS), in order; `lastSeq`
 * is the agent's newest seq, to say when the range runs past it.
 */
export function expandText(all: readonly HistoryEntry[], range: { fromSeq: number; toSeq: number }, lastSeq: number): string {
  const entries = all.filter((e) => e.kind !== 'model_failure'); // the record's, never the model's
  const wanted = `${range.fromSeq}–${range.toSeq}`;
  if (entries.length === 0) {
    return range.fromSeq > lastSeq ? `No entries in seq ${wanted}: this agent's history ends at seq ${lastSeq}.` : `No entries in seq ${wanted}.`;
  }
  const parts: string[] = [];
  let chars = 0;
  let shown = 0;
  for (const entry of entries) {
    if (shown >= EXPAND_MAX_ENTRIES) break;
    let text = entryAsText(entry);
    if (shown > 0 && chars + text.length > EXPAND_MAX_CHARS) break;
    // One entry larger than the whole allowance: its beginning, saying so.
    if (text.length > EXPAND_MAX_CHARS)
      text = `${text.slice(0, EXPAND_MAX_CHARS)}\n[entry #${entry.seq} cut: ${text.length} characters in all, ${EXPAND_MAX_CHARS} shown]`;
    parts.push(text);
    chars += text.length;
    shown++;
  }
  const last = entries[shown - 1].seq;
  const end = Math.min(range.toSeq, lastSeq);
  const head = `Entries ${entries[0].seq}–${last} of the requested ${wanted}, verbatim:`;
  const tail =
    last < end
      ? `[Not shown: seq ${last + 1}–${end} (at most ${EXPAND_MAX_ENTRIES} entries or about ${EXPAND_MAX_CHARS / 1000} KB per call). For more: expand({"fromSeq": ${last + 1}, "toSeq": ${end}}).]`
      : range.toSeq > lastSeq
        ? `[This agent's history ends at seq ${lastSeq}.]`
        : '';
  return [head, '', parts.join('\n\n'), ...(tail ? ['', tail] : [])].join('\n');
}

/** One entry as readable text: a header line (seq, kind, time), then what it holds. */
export function entryAsText(entry: HistoryEntry): string {
  const head = `#${entry.seq} · ${label(entry.kind)} · ${entry.timestamp}`;
  const body: string[] = [];
  switch (entry.kind) {
    case 'model_input':
      if (entry.sender) body.push(`(from ${entry.sender})`);
      for (const s of entry.sections) body.push(s.title === 'Input' ? s.content : `[${s.title}]\n${s.content}`);
      for (const a of entry.attachments ?? []) body.push(`[attachment: ${JSON.stringify(a).slice(0, 200)}]`);
      break;
    case 'model_output':
      body.push(...entry.contents);
      for (const c of entry.toolCalls) body.push(`→ ${c.toolName} ${c.rawArguments} (call ${c.toolCallId})`);
      break;
    case 'tool_results':
      for (const r of entry.results) body.push(`← ${r.toolName} [${r.status}] (call ${r.toolCallId})\n${r.result}`);
      if (entry.executeError) body.push(`The batch could not run: ${entry.executeError}`);
      break;
    case 'system_instruction':
      body.push(entry.instruction);
      break;
    case 'widget_write':
      body.push(`${entry.widget}${entry.by ? ` (by ${entry.by})` : ''}: ${typeof entry.write === 'string' ? entry.write : JSON.stringify(entry.write)}`);
      break;
    case 'turn_end':
      body.push(entry.reason === 'ask_user' ? `The model asked: ${entry.question ?? ''}` : `Interrupted${entry.by ? ` by ${entry.by}` : ''}.`);
      break;
    default:
      body.push(otherText(entry));
  }
  return [head, ...body].join('\n');
}

/** Kinds this code does not know: a compaction's summary with the range it covers, else the entry's JSON. */
function otherText(entry: HistoryEntry): string {
  const { seq: _seq, timestamp: _timestamp, kind: _kind, ...rest } = entry as unknown as Record<string, unknown>;
  if (typeof rest.summary === 'string') {
    const covers = typeof rest.fromSeq === 'number' && typeof rest.throughSeq === 'number' ? ` (of seq ${rest.fromSeq}–${rest.throughSeq})` : '';
    return `Summary${covers}:\n${rest.summary}`;
  }
  return JSON.stringify(rest);
}
