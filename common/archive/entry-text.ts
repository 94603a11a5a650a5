/**
 * The searchable text of a history entry: what was said and done, without ids, timestamps or usage.
 * Calls of `recall` and `expand` and their results are left out: they hold copies of older entries,
 * and a search that found the copies would only repeat itself. A model failure has none: the model
 * never sees one.
 */
import type { HistoryEntry } from '../../agent/index';

/** The built-in tools that read the archive (activities/tools/archive-tools.ts). */
export const ARCHIVE_TOOL_NAMES: readonly string[] = ['recall', 'expand'];

export function entryText(entry: HistoryEntry): string {
  switch (entry.kind) {
    case 'model_input':
      return entry.sections.map((s) => (s.title && s.title !== 'Input' ? `${s.title}: ${s.content}` : s.content)).join('\n');
    case 'model_output':
      return [...entry.contents, ...entry.toolCalls.filter((c) => !ARCHIVE_TOOL_NAMES.includes(c.toolName)).map((c) => `${c.toolName} ${c.rawArguments}`)].join(
        '\n',
      );
    case 'tool_results':
      return [
        ...entry.results.filter((r) => !ARCHIVE_TOOL_NAMES.includes(r.toolName)).map((r) => `${r.toolName}: ${r.result}`),
        ...(entry.executeError ? [entry.executeError] : []),
      ].join('\n');
    case 'system_instruction':
      return entry.instruction;
    case 'widget_write':
      return `${entry.widget}: ${typeof entry.write === 'string' ? entry.write : JSON.stringify(entry.write)}`;
    case 'turn_end':
      return entry.question ?? '';
    case 'model_failure':
    case 'rewind':
    case 'tool_rules':
    case 'a2a_push':
      return ''; // the record's, never the model's: recall does not find it
    default:
      return otherText(entry);
  }
}

/** Kinds this code does not know: a compaction's summary, else the entry's JSON without its bookkeeping. */
function otherText(entry: HistoryEntry): string {
  const e = entry as unknown as Record<string, unknown>;
  if (e.kind === 'compaction' && typeof e.summary === 'string') return e.summary;
  const { seq: _seq, timestamp: _timestamp, kind: _kind, metadata: _metadata, ...rest } = e;
  return JSON.stringify(rest);
}
