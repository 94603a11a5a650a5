/** How entries and outcomes look on a terminal. */
import type { HistoryEntry } from '../agent';

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
      const lines = entry.contents.length ? [`#${entry.seq} agent (${entry.invocation.providerId}:${entry.invocation.model}): ${clip(entry.contents.join(' '), 400)}`] : [];
      for (const call of entry.toolCalls) lines.push(`#${entry.seq}   → ${call.toolName} ${clip(call.rawArguments, 100)}`);
      return lines;
    }
    case 'tool_results':
      return entry.results.map((r) => `#${entry.seq}   ← ${r.toolName} ${r.status}: ${clip(r.result, 120)}`);
  }
}

/** Tool activity between an input entry and the answer, shown as progress lines in the chat. */
export function formatProgress(entries: HistoryEntry[]): string[] {
  const lines: string[] = [];
  for (const e of entries) {
    if (e.kind === 'model_output') for (const c of e.toolCalls) lines.push(`  · ${c.toolName} ${clip(c.rawArguments, 100)}`);
    if (e.kind === 'tool_results') for (const r of e.results) lines.push(`    ${r.status === 'Success' ? '✓' : '✗'} ${r.toolName}: ${clip(r.result, 100)}`);
  }
  return lines;
}
