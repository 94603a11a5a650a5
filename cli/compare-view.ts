/** `livecontext compare`'s output: each model's answer in a column of its own, with usage, cost and duration below. */
import type { CompareResult } from '../client/agent-compare';
import { terminalText } from './terminal-text';

/** `text` cut into lines of at most `width` characters, at spaces where it can. */
export function wrap(text: string, width: number): string[] {
  const out: string[] = [];
  for (const paragraph of text.split('\n')) {
    let line = '';
    for (const word of paragraph.split(/ +/)) {
      for (let rest = word; rest.length;) {
        const room = line ? width - line.length - 1 : width;
        if (rest.length <= room) {
          line = line ? `${line} ${rest}` : rest;
          rest = '';
        } else if (line) {
          out.push(line);
          line = '';
        } else {
          out.push(rest.slice(0, width));
          rest = rest.slice(width);
        }
      }
    }
    out.push(line);
  }
  return out;
}

function footer(r: CompareResult): string[] {
  const u = r.usage;
  return [
    `${u.modelCalls} call${u.modelCalls === 1 ? '' : 's'}, ${u.inputTokens} in / ${u.outputTokens} out`,
    `cost ${u.costUsd === null ? '-' : `$${u.costUsd.toFixed(4)}`}`,
    `duration ${r.durationMs === null ? '-' : `${(r.durationMs / 1000).toFixed(1)} s`}`,
  ];
}

/** The results in columns that share `columns` characters (at least 20 each). */
export function sideBySide(results: readonly CompareResult[], columns: number): string {
  const gap = ' │ ';
  const width = Math.max(20, Math.floor((columns - gap.length * (results.length - 1)) / Math.max(1, results.length)));
  const blocks = results.map((r) => [
    ...wrap(r.model, width),
    ...wrap(`(${r.agentId})`, width),
    '─'.repeat(width),
    ...wrap(terminalText(r.status === 'answered' ? r.text : `[${r.status}] ${r.text}`), width),
    '─'.repeat(width),
    ...footer(r).flatMap((l) => wrap(l, width)),
  ]);
  const height = Math.max(...blocks.map((b) => b.length));
  const lines: string[] = [];
  for (let i = 0; i < height; i++)
    lines.push(
      blocks
        .map((b) => (b[i] ?? '').padEnd(width))
        .join(gap)
        .trimEnd(),
    );
  return lines.join('\n');
}
