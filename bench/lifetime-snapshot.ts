/**
 * The lifetime benchmark's old agents, made as the issue's measurement made them: a young agent's
 * export (a few turns) grown to N entries by repeating its turns with fresh sequence numbers, input
 * numbers and tool call ids, written as a version-1 snapshot that `livecontext import` reads. The file
 * is written entry by entry, so a 400 MB snapshot never sits in this process as one string.
 */
import { closeSync, openSync, writeSync } from 'node:fs';
import type { AgentSnapshot, HistoryEntry, ToolCallRequest } from '../agent/index';

/** One size of the benchmark: N entries, as they come from the young agent or padded to ~entryBytes each. */
export interface SizeSpec {
  /** As given on the command line, e.g. `100000x4k`. */
  key: string;
  entries: number;
  /** Each grown entry's JSON padded to this many bytes; absent: the young agent's entries as they are. */
  entryBytes?: number;
  /** For the table, e.g. `100,000 × 4 KB`. */
  label: string;
}

export const DEFAULT_SIZES = '1000,100000,1000000,100000x4k';

/** `1000,100000,100000x4k`: entry counts, optionally `x<K>k` for entries of ~K KiB. */
export function parseSizes(raw: string): SizeSpec[] {
  return raw.split(',').map((part) => {
    const m = /^\s*(\d+)(?:x(\d+)k)?\s*$/i.exec(part);
    const entries = Number(m?.[1]);
    if (!m || !Number.isInteger(entries) || entries < 10) {
      throw new Error(`--sizes ${raw}: give entry counts of at least 10, comma-separated, each optionally with xKk (entries of ~K KiB), e.g. 1000,100000x4k`);
    }
    const kib = m[2] ? Number(m[2]) : undefined;
    const label = `${entries.toLocaleString('en-US')}${kib ? ` × ${kib} KB` : ''}`;
    return { key: part.trim(), entries, label, ...(kib ? { entryBytes: kib * 1024 } : {}) };
  });
}

/** The young agent's turns: each starts at an input; entries before the first input stay at the head. */
function turnsOf(entries: readonly HistoryEntry[]): { head: HistoryEntry[]; turns: HistoryEntry[][] } {
  const head: HistoryEntry[] = [];
  const turns: HistoryEntry[][] = [];
  for (const e of entries) {
    if (e.kind === 'model_input') turns.push([e]);
    else if (turns.length) turns[turns.length - 1].push(e);
    else head.push(e);
  }
  if (!turns.length) throw new Error('the young agent has no turns to repeat');
  return { head, turns };
}

/** Words to pad with: varied text (as real entries are), cut at an offset that depends on the entry. */
const POOL = (() => {
  const words =
    'agent archive budget cache context durable entry export history import input memory model notebook output replay segment signal state task tool turn worker workflow answer'.split(
      ' ',
    );
  let x = 12345;
  const out: string[] = [];
  for (let len = 0; len < 256 * 1024;) {
    x = (x * 1103515245 + 12345) & 0x7fffffff;
    const w = words[x % words.length];
    out.push(w);
    len += w.length + 1;
  }
  return out.join(' ');
})();

function padText(seq: number, chars: number): string {
  if (chars <= 0) return '';
  const start = (seq * 7919) % (POOL.length - chars - 1);
  return POOL.slice(start, start + chars);
}

/**
 * A repeated note rewrites itself instead of being appended again: an agent's notebook is bounded (64 K
 * characters), and one appended a million times over would not be an old agent but a broken one.
 */
function rewritten(call: ToolCallRequest): ToolCallRequest {
  if (call.toolName !== 'memory_notebook_replace') return call;
  const args = JSON.parse(call.rawArguments) as { old_text?: string; new_text?: string };
  if (args.old_text !== '' || !args.new_text) return call;
  const again = { old_text: args.new_text, new_text: args.new_text };
  return { ...call, rawArguments: JSON.stringify(again), ...(call.arguments ? { arguments: again } : {}) };
}

/** A copy of `e` for repetition `rep` (`again`: its turn was repeated before): new seq (and input number), tool call ids made unique. */
function copy(e: HistoryEntry, seq: number, inputSeq: number, rep: number, again: boolean): HistoryEntry {
  const id = (toolCallId: string) => `${toolCallId}-r${rep}`;
  switch (e.kind) {
    case 'model_input':
      return { ...e, seq, inputSeq };
    case 'model_output':
      return {
        ...e,
        seq,
        toolCalls: e.toolCalls.map((c) => (again ? rewritten({ ...c, toolCallId: id(c.toolCallId) }) : { ...c, toolCallId: id(c.toolCallId) })),
      };
    case 'tool_results':
      return { ...e, seq, results: e.results.map((r) => ({ ...r, toolCallId: id(r.toolCallId) })) };
    default:
      return { ...e, seq };
  }
}

/** `e` with its main text grown so that its JSON is about `bytes` long. */
function padded(e: HistoryEntry, bytes: number): HistoryEntry {
  const grow = (text: string, by: number) => `${text} ${padText(e.seq, by)}`;
  const by = bytes - JSON.stringify(e).length - 1;
  if (by <= 0) return e;
  switch (e.kind) {
    case 'model_input':
      return { ...e, sections: [{ ...e.sections[0], content: grow(e.sections[0].content, by) }, ...e.sections.slice(1)] };
    case 'model_output':
      return { ...e, contents: [grow(e.contents[0] ?? '', by), ...e.contents.slice(1)] };
    case 'tool_results':
      return e.results.length ? { ...e, results: [{ ...e.results[0], result: grow(e.results[0].result, by) }, ...e.results.slice(1)] } : e;
    default:
      return e;
  }
}

/**
 * Writes the young agent grown to `spec.entries` entries (whole turns: the last one may go a few
 * entries over) to `file`. Returns the entries written and the file's size.
 */
export function writeGrownSnapshot(young: AgentSnapshot, spec: SizeSpec, file: string): { entries: number; bytes: number } {
  const { head, turns } = turnsOf(young.entries);
  const fd = openSync(file, 'w');
  let bytes = 0;
  const write = (s: string) => (bytes += writeSync(fd, s));
  try {
    // Everything of the young agent but its history and what numbers it (and an archive, had it one):
    // the grown snapshot is a version-1 one, every entry inline, as agents exported before the archive.
    const dropped = new Set(['entries', 'nextSeq', 'nextInputSeq', 'consumedInputSeq', 'acceptedKeys', 'budgetFromSeq', 'resetAfterInputSeq', 'archive']);
    const rest = Object.fromEntries(Object.entries(young).filter(([key]) => !dropped.has(key)));
    let seq = 0;
    let inputSeq = 0;
    let chunk: string[] = [];
    let first = true;
    const flush = () => {
      if (!chunk.length) return;
      write(`${first ? '' : ','}${chunk.join(',')}`);
      first = false;
      chunk = [];
    };
    const add = (e: HistoryEntry) => {
      chunk.push(JSON.stringify(spec.entryBytes ? padded(e, spec.entryBytes) : e));
      if (chunk.length >= 1000) flush();
    };
    write(`${JSON.stringify({ ...rest, version: 1, inbox: [], pendingToolResults: [] }).slice(0, -1)},"entries":[`);
    let written = 0;
    for (const e of head) {
      add({ ...e, seq: ++seq });
      written++;
    }
    for (let rep = 0; written < spec.entries; rep++) {
      const turn = turns[rep % turns.length];
      inputSeq++;
      for (const e of turn) {
        add(copy(e, ++seq, inputSeq, rep, rep >= turns.length));
        written++;
      }
    }
    flush();
    write(`],"nextSeq":${seq + 1},"nextInputSeq":${inputSeq + 1},"consumedInputSeq":${inputSeq}}\n`);
    return { entries: written, bytes };
  } finally {
    closeSync(fd);
  }
}
