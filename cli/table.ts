/** Aligned columns for the CLI's tables (apart from format.ts, which loads the agent core: `list` needs only this). */
import { terminalText } from './terminal-text';

/** Rows as aligned columns (two spaces apart; the last column unpadded), each cell safe on a terminal. */
export function formatTable(table: string[][]): string {
  const rows = table.map((r) => r.map(terminalText)); // before measuring: an escaped control is wider
  const widths = rows[0].map((_, i) => Math.max(...rows.map((r) => r[i].length)));
  return rows.map((r) => r.map((cell, i) => (i < r.length - 1 ? cell.padEnd(widths[i]) : cell)).join('  ')).join('\n');
}
