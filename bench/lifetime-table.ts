/**
 * The lifetime benchmark's table: one column per size, each figure beside the first (smallest) size's
 * as a ratio, with issue 28's goal and whether it is met. A size that did not finish shows where it
 * stopped, and a note under the table says what was seen.
 */
import type { SizeFigures } from './lifetime-agent';
import type { SizeSpec } from './lifetime-snapshot';
import { type Row, ratio, round } from './support';

type Measured = { size: SizeSpec; figures: SizeFigures };

interface Figure {
  name: string;
  pick: (f: SizeFigures) => number | null | undefined;
  goal: string;
  /** Whether `value` meets the goal, given the first size's figure and how many times larger the snapshot is. */
  meets?: (value: number, base: number, sizeRatio: number, size: SizeSpec) => boolean;
  /** A count, shown without a ratio. */
  plain?: boolean;
  /** A ratio only of two figures above zero. */
  positive?: boolean;
}

const within = (x: number) => (v: number, base: number) => base > 0 && v <= x * base;
const linear = (v: number, base: number, sizeRatio: number) => base > 0 && v <= 1.5 * sizeRatio * base;

/** In the order they are measured, so a size that stops shows where. */
const FIGURES: Figure[] = [
  { name: 'snapshot (MB)', pick: (f) => (f.snapshotFile ? round(f.snapshotFile.bytes / 1e6, 1) : null), goal: '' },
  { name: 'import: `livecontext import` (ms)', pick: (f) => f.importMs, goal: 'linear in size', meets: linear },
  { name: 'first turn after import (ms)', pick: (f) => f.firstTurnAfterImportMs, goal: '' },
  { name: "— the imported run's first workflow task, server-side (ms)", pick: (f) => f.importedRunFirstTask?.ms, goal: '' },
  { name: '— the attempt at which that task completed', pick: (f) => f.importedRunFirstTask?.attempt, goal: '', plain: true },
  {
    name: 'worker RSS per cached agent (MiB)',
    pick: (f) => f.rssPerAgentMiB,
    goal: '≤ 8 MiB at 1M entries, ≤ 1.5×',
    // A worker that did not grow (≤ 0: it shrinks as V8 lets go of memory over time) meets it too.
    meets: (v, base, _r, size) => (v <= 0 || v <= 1.5 * base) && (size.entries < 1_000_000 || v <= 8),
    positive: true,
  },
  { name: "— the worker's peak RSS (VmHWM) above its RSS before the import (MiB)", pick: (f) => f.peakAboveBeforeMiB, goal: '' },
  { name: 'input → answer p50 (ms)', pick: (f) => f.inputToAnswerP50Ms, goal: '≤ 1.5×', meets: within(1.5) },
  { name: 'export: `livecontext export --out` (ms)', pick: (f) => f.exportMs, goal: 'linear in size', meets: linear },
  { name: 'first turn after a worker SIGKILL: new process spawn → answer (ms)', pick: (f) => f.recovery?.spawnToAnswerMs, goal: '≤ 1.5×', meets: within(1.5) },
  { name: "— the new worker's first workflow task, server-side (ms)", pick: (f) => f.recovery?.newWorkerFirstTask?.ms, goal: '' },
  { name: '— the attempt at which that task completed', pick: (f) => f.recovery?.newWorkerFirstTask?.attempt, goal: '', plain: true },
  { name: 'the task that continues as new, server-side (ms)', pick: (f) => f.continueAsNew?.continueAsNewTaskMs, goal: '≤ 1.5×', meets: within(1.5) },
  { name: "the new run's first task, server-side (ms)", pick: (f) => f.continueAsNew?.newRunFirstTaskMs, goal: '≤ 1.5×', meets: within(1.5) },
  { name: 'input → answer across continue-as-new (ms)', pick: (f) => f.continueAsNew?.wallMs, goal: '' },
];

const num = (v: number) => v.toLocaleString('en-US');

export function lifetimeTable(measured: Measured[]): string {
  const [first] = measured;
  const notes: string[] = [];
  const stopped = new Map<Measured, number>(); // the size's note number
  for (const m of measured) {
    if (m.figures.didNotFinish) {
      notes.push(`${notes.length + 1}. ${m.size.label} entries: ${m.figures.didNotFinish}`);
      stopped.set(m, notes.length);
    }
  }
  const bytes = (m: Measured) => m.figures.snapshotFile?.bytes ?? 0;
  const cell = (fig: Figure, m: Measured, markedStop: Set<Measured>): string => {
    const v = fig.pick(m.figures);
    if (v === null || v === undefined) {
      const n = stopped.get(m);
      if (n && !markedStop.has(m)) {
        markedStop.add(m);
        return `did not finish (${n})`;
      }
      return '—';
    }
    const base = fig.pick(first.figures);
    if (m === first || fig.plain || base === null || base === undefined) return num(v);
    const r = fig.positive && (v <= 0 || base <= 0) ? null : ratio(v, base);
    const ok = fig.meets?.(v, base, bytes(first) ? bytes(m) / bytes(first) : 1, m.size);
    return `${num(v)} (${r === null ? '—' : `${r}×`})${ok === undefined ? '' : ok ? ' ✓' : ' ✗'}`;
  };
  const marked = new Set<Measured>();
  const lines = [
    `| figure | ${measured.map((m) => `${m.size.label} entries`).join(' | ')} | goal (× the ${first.size.label}-entry agent) |`,
    `|---|${measured.map(() => '---:|').join('')}---|`,
    ...FIGURES.map((fig) => `| ${fig.name} | ${measured.map((m) => cell(fig, m, marked)).join(' | ')} | ${fig.goal} |`),
  ];
  return `${lines.join('\n')}\n${notes.length ? `\n${notes.join('\n')}\n` : ''}`;
}

/** Rows for the suite's table: each figure of each larger size beside the first size's (the "baseline" column). */
export function lifetimeRows(measured: Measured[]): Row[] {
  const [first, ...rest] = measured;
  const rows: Row[] = [];
  for (const m of rest) {
    if (m.figures.didNotFinish) rows.push({ figure: `${m.size.label} entries did not finish: ${m.figures.didNotFinish}`, livecontext: null, baseline: null });
    for (const fig of FIGURES) {
      const v = fig.pick(m.figures) ?? null;
      const base = fig.pick(first.figures) ?? null;
      rows.push({ figure: `${fig.name}, ${m.size.label} entries (baseline: ${first.size.label})`, livecontext: v, baseline: base, ratio: ratio(v, base) });
    }
  }
  return rows;
}
