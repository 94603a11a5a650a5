/**
 * The CLI's chat on a real terminal (a pseudo-terminal from util-linux `script`), and what a person
 * would see on it: the raw output rendered as a terminal renders it (carriage returns, line clears
 * and cursor moves applied), so tests can assert the order of lines on the screen.
 */
import { spawn } from 'node:child_process';
import path from 'node:path';
import { eventually, testAddress } from '../support/temporal';

const BIN = path.resolve(__dirname, '../../bin/livecontext.js');

export interface PtyChat {
  /** Everything written to the terminal so far. */
  raw(): string;
  /** The screen's lines, as rendered now (trailing blanks trimmed, a prompt line kept as `you> `). */
  lines(): string[];
  /** Types text; `\r` is Enter. */
  type(text: string): void;
  /** Waits until `check` holds for the screen's lines. */
  until(check: (lines: string[]) => boolean, what: string, timeoutMs?: number): Promise<void>;
  exited: Promise<number | null>;
  kill(): void;
}

export function startPtyChat(args: string[], env: Record<string, string>): PtyChat {
  const command = [process.execPath, BIN, ...args].map((a) => `'${a.replace(/'/g, `'\\''`)}'`).join(' ');
  const child = spawn('script', ['-qfec', command, '/dev/null'], {
    env: { ...process.env, TEMPORAL_ADDRESS: testAddress(), TERM: 'dumb', ...env },
    stdio: ['pipe', 'pipe', 'pipe'],
  });
  let out = '';
  child.stdout.setEncoding('utf8');
  child.stderr.setEncoding('utf8');
  child.stdout.on('data', (d: string) => (out += d));
  child.stderr.on('data', (d: string) => (out += d));
  const exited = new Promise<number | null>((resolve) => child.on('close', resolve));
  const lines = () => renderTerminal(out);
  return {
    raw: () => out,
    lines,
    type: (text) => void child.stdin.write(text),
    until: async (check, what, timeoutMs = 30_000) => {
      try {
        await eventually(() => check(lines()), timeoutMs, what);
      } catch (err) {
        throw new Error(`${(err as Error).message}\nScreen:\n${lines().join('\n')}`);
      }
    },
    exited,
    kill: () => void child.kill(),
  };
}

/** Renders terminal output: printable text, \r, \n, \b, and the CSI sequences readline uses. */
export function renderTerminal(raw: string): string[] {
  const screen: string[][] = [[]];
  let row = 0;
  let col = 0;
  const line = () => (screen[row] ??= []);
  const chars = Array.from(raw);
  for (let i = 0; i < chars.length; i++) {
    const ch = chars[i];
    if (ch === '\x1b') {
      const rest = chars.slice(i, i + 20).join('');
      const csi = /^\x1b\[([0-9;?]*)([A-Za-z~])/.exec(rest);
      if (!csi) {
        i += 1; // a two-character escape
        continue;
      }
      i += Array.from(csi[0]).length - 1;
      const n = Number(csi[1].replace('?', '').split(';')[0] || 0);
      switch (csi[2]) {
        case 'G':
          col = Math.max(n - 1, 0);
          break;
        case 'K':
          if (n === 0) line().length = Math.min(line().length, col);
          else if (n === 2) screen[row] = [];
          else for (let c = 0; c <= col; c++) line()[c] = ' ';
          break;
        case 'J':
          line().length = Math.min(line().length, col);
          screen.length = row + 1;
          break;
        case 'A':
          row = Math.max(row - (n || 1), 0);
          break;
        case 'B':
          row += n || 1;
          break;
        case 'C':
          col += n || 1;
          break;
        case 'D':
          col = Math.max(col - (n || 1), 0);
          break;
        default:
          break; // modes (bracketed paste and the like) change nothing on screen
      }
      continue;
    }
    if (ch === '\r') col = 0;
    else if (ch === '\n') row++;
    else if (ch === '\b') col = Math.max(col - 1, 0);
    else if (ch >= ' ') {
      const l = line();
      while (l.length < col) l.push(' ');
      l[col++] = ch;
    }
  }
  const rendered = Array.from({ length: screen.length }, (_, r) => (screen[r] ?? []).join('').trimEnd());
  while (rendered.length && !rendered[rendered.length - 1]) rendered.pop();
  return rendered.map((l) => (l === 'you>' ? 'you> ' : l));
}
