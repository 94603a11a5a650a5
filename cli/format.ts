/** How entries and outcomes look on a terminal. */
import { describeToolRule, type HistoryEntry, type ModelFailureEntry, type ModelInputEntry } from '../agent/index';

export { formatTable } from './table';

const clip = (text: string, max = 160) => {
  const one = text.replace(/\s+/g, ' ').trim();
  return one.length > max ? `${one.slice(0, max - 1)}…` : one;
};

/** One or more lines per entry, for `/history` and for the progress of a turn. */
export function formatEntry(entry: HistoryEntry): string[] {
  switch (entry.kind) {
    case 'system_instruction':
      return [`#${entry.seq} system: ${clip(entry.instruction)}`];
    case 'model_input':
      return [`#${entry.seq} ${entry.sender ?? 'you'}: ${clip(entry.sections.map((s) => s.content).join(' / '))}`];
    case 'model_output': {
      const lines = entry.contents.length
        ? [`#${entry.seq} agent (${entry.invocation.providerId}:${entry.invocation.model}): ${clip(entry.contents.join(' '), 400)}`]
        : [];
      for (const call of entry.toolCalls) lines.push(`#${entry.seq}   → ${call.toolName} ${clip(call.rawArguments, 100)}`);
      return lines;
    }
    case 'tool_results':
      if (entry.results.length === 0 && entry.executeError) return [`#${entry.seq}   ← not run: ${clip(entry.executeError, 120)}`];
      return entry.results.map(
        (r) =>
          `#${entry.seq}   ← ${r.toolName} ${r.status}${decisionNote(r.metadata)}${attemptsNote(r.metadata)}${unknownOutcomeNote(r.metadata)}: ${clip(r.result, 120)}`,
      );
    case 'widget_write':
      return [`#${entry.seq} ${entry.by ?? 'host'} wrote to ${entry.widget}: ${clip(JSON.stringify(entry.write), 120)}`];
    case 'turn_end':
      return [
        entry.reason === 'ask_user'
          ? `#${entry.seq} agent asks: ${clip(entry.question ?? '', 400)}`
          : `#${entry.seq} (turn interrupted${entry.by ? ` by ${entry.by}` : ''}; waiting for input)`,
      ];
    case 'compaction':
      return [
        `#${entry.seq} (context compacted by ${entry.invocation.providerId}:${entry.invocation.model}: #1–#${entry.throughSeq} summarised) ${clip(entry.summary, 200)}`,
      ];
    case 'model_failure':
      return [`#${entry.seq} ✗ ${modelFailureText(entry)}`];
    case 'rewind':
      return [`#${entry.seq} ⟲ rewound to #${entry.toSeq}${entry.by ? ` by ${entry.by}` : ''}${entry.reason ? `: ${clip(entry.reason, 200)}` : ''}`];
    case 'tool_rules':
      return [
        `#${entry.seq} tool rules ${entry.change === 'remember' ? 'extended' : 'set'}${entry.by ? ` by ${entry.by}` : ''}: ${entry.rules.length ? entry.rules.map(describeToolRule).join('; ') : 'none'}`,
      ];
    case 'a2a_push':
      return [
        entry.change === 'failed'
          ? `#${entry.seq} ✗ A2A push ${entry.deliveryId} (${entry.state}) to ${entry.configId} not delivered: ${clip(entry.error ?? '', 200)}`
          : `#${entry.seq} A2A push config ${entry.configId} for turn ${entry.inputSeq} ${entry.change === 'set' ? `set: ${entry.url}` : 'removed'}${entry.by ? ` by ${entry.by}` : ''}`,
      ];
  }
}

/** A blocking model failure in words: which call, which model, the code and message, after how many attempts, at what time. */
export function modelFailureText(e: ModelFailureEntry): string {
  const what = e.call === 'compaction' ? 'compaction by' : 'model call to';
  const attempts = e.attempts ? ` after ${e.attempts} attempt${e.attempts === 1 ? '' : 's'}` : '';
  const before = e.fallbackFrom?.length ? `; failed before it: ${e.fallbackFrom.map((f) => `${f.model} (${f.code})`).join(', ')}` : '';
  return `${what} ${e.model} failed${attempts} at ${e.timestamp} (${e.code}): ${clip(e.message, 200)}${before}; the agent was blocked on it`;
}

/** ` (3 attempts; 1: why it failed; 2: …)` for a result that took more than one attempt, else ''. */
export function attemptsNote(metadata: Record<string, unknown> | undefined): string {
  const attempts = Number(metadata?.attempts);
  if (!(attempts > 1)) return '';
  const errors = Array.isArray(metadata?.attempt_errors) ? (metadata.attempt_errors as Array<{ attempt?: unknown; error?: unknown }>) : [];
  const why = errors.map((e) => `; ${String(e?.attempt)}: ${clip(String(e?.error ?? ''), 60)}`).join('');
  return ` (${attempts} attempts${why})`;
}

/** ` (approved through rest by ada at …)` for a call a person decided on (metadata `decision`), else ''. */
export function decisionNote(metadata: Record<string, unknown> | undefined): string {
  const d = metadata?.decision as { approved?: unknown; door?: unknown; by?: unknown; at?: unknown } | undefined;
  if (!d || typeof d.approved !== 'boolean' || typeof d.door !== 'string') return '';
  const by = typeof d.by === 'string' ? ` by ${d.by}` : '';
  const at = typeof d.at === 'string' ? ` at ${d.at}` : '';
  return ` (${d.approved ? 'approved' : 'denied'} through ${d.door}${by}${at})`;
}

/**
 * ` (outcome was unknown; resolved done by ada)` for a call whose earlier attempt never reported: how it was
 * settled (a person's or service's resolve, the tool's reconcile, or a rerun of an idempotent tool), else ''.
 */
export function unknownOutcomeNote(metadata: Record<string, unknown> | undefined): string {
  if (metadata?.reconciled === true) return ' (outcome was unknown; reconcile found the effect)';
  if (metadata?.reconciled === 'not_done') return ' (outcome was unknown; reconcile found no effect: run again)';
  if (metadata?.rerun_after_unknown === true) return ' (outcome was unknown; run again: idempotent)';
  if (typeof metadata?.resolved !== 'string') return '';
  const by = typeof metadata.resolved_by === 'string' ? ` by ${metadata.resolved_by}` : '';
  return ` (outcome was unknown; resolved ${metadata.resolved}${by})`;
}

/** Tool activity between an input entry and the answer, shown as progress lines (piped chat: on stderr). */
export function formatProgress(entries: HistoryEntry[]): string[] {
  return entries.flatMap(formatToolActivity);
}

/** The tool calls of a model output, or the results of a tool results entry, one line each. */
export function formatToolActivity(e: HistoryEntry): string[] {
  if (e.kind === 'model_output') return e.toolCalls.map((c) => `  · ${c.toolName} ${clip(c.rawArguments, 100)}`);
  if (e.kind === 'tool_results' && e.results.length === 0 && e.executeError) return [`    ✗ not run: ${clip(e.executeError, 100)}`];
  if (e.kind === 'tool_results') return e.results.map((r) => `    ${r.status === 'Success' ? '✓' : '✗'} ${r.toolName}: ${clip(r.result, 100)}`);
  return [];
}

/**
 * A running tool's progress report (its heartbeat details, as MCP tools send them:
 * `{ tool, progress, total?, message? }`) as one line, or undefined for details of another shape.
 */
export function formatToolProgress(details: unknown): string | undefined {
  const d = details as { tool?: unknown; progress?: unknown; total?: unknown; message?: unknown } | null;
  if (!d || typeof d !== 'object' || typeof d.tool !== 'string' || typeof d.progress !== 'number') return undefined;
  const total = typeof d.total === 'number' ? `/${d.total}` : '';
  const message = typeof d.message === 'string' && d.message ? ` ${clip(d.message, 100)}` : '';
  return `    … ${d.tool}: ${d.progress}${total}${message}`;
}

/** An input entry as the chat shows it when another client sent it. */
export function formatOtherInput(e: ModelInputEntry): string {
  return `${e.sender ?? 'another client'}> ${clip(e.sections.map((s) => s.content).join(' / '), 400)}`;
}
