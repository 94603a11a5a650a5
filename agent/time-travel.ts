/**
 * Time travel (issue 30): which entries are points an agent can go back to (rewind) or start a copy from
 * (fork), and which entries are still in force after rewinds. Pure; shared by the workflow (a rewind's
 * checks), the model call (what the model is sent), the clients (history) and fork.
 *
 * @example
 * travelPoint(entries, 12); // { ok: true, seq: 12, kind: 'turn_end' } or { ok: false, reason: 'Entry #12 is … nearest: #9, #15.' }
 * visibleEntries(entries); // entries without those a `rewind` entry took out
 */
import type { HistoryEntry, RewindEntry } from './entries';

/** A point SEQ is valid: the agent goes on from there. `turn` — the turn was over at SEQ; `input` — the turn of the input at SEQ runs again. */
export type TravelPoint =
  | { ok: true; seq: number; kind: 'turn' | 'input' }
  | {
      ok: false;
      /** Says what SEQ is and which valid points are nearest. */
      reason: string;
      /** The nearest valid points before and after SEQ, when there are. */
      nearest: { before?: number; after?: number };
    };

/**
 * Whether `entry` is a point to go back to: a turn's end (an answer — a model output without tool calls
 * — or a `turn_end`: interrupted, or a question to the user), or a `model_input` (its turn runs again).
 * Not a model output with tool calls nor tool results: the turn is in the middle of its tool loop there,
 * and what pending calls, approvals and effects were then is not in history.
 */
export function isTravelPoint(entry: HistoryEntry): 'turn' | 'input' | undefined {
  if (entry.kind === 'model_input') return 'input';
  if (entry.kind === 'turn_end') return 'turn';
  if (entry.kind === 'model_output' && entry.toolCalls.length === 0) return 'turn';
  return undefined;
}

/**
 * Whether `seq` is a valid point of `entries` (oldest first, as held; rewound entries included — they
 * are refused, as they are no longer in force). The reason of a refusal names the nearest valid points.
 */
export function travelPoint(entries: readonly HistoryEntry[], seq: number): TravelPoint {
  const visible = visibleEntries(entries);
  const index = visible.findIndex((e) => e.seq === seq);
  const nearest: { before?: number; after?: number } = {};
  for (let i = visible.length - 1; i >= 0; i--) {
    if (visible[i].seq < seq && isTravelPoint(visible[i])) {
      nearest.before = visible[i].seq;
      break;
    }
  }
  for (const e of visible) {
    if (e.seq > seq && isTravelPoint(e)) {
      nearest.after = e.seq;
      break;
    }
  }
  const near = nearestText(nearest);
  const refuse = (why: string): TravelPoint => ({ ok: false, reason: `${why} ${near}`, nearest });
  if (!Number.isInteger(seq) || seq < 1) return refuse(`#${seq} is before the start of the history (entries are numbered from 1).`);
  const last = entries.at(-1)?.seq ?? 0;
  if (seq > last) return refuse(`#${seq} is beyond the last entry (#${last}).`);
  if (index < 0) {
    const at = entries.find((e) => e.seq === seq);
    if (at) {
      const by = rewoundBy(entries, seq);
      return refuse(`Entry #${seq} (${at.kind}) was rewound${by ? ` by the rewind #${by.seq} (to #${by.toSeq})` : ''}: it is no longer in force.`);
    }
    return refuse(`Entry #${seq} is not among the entries held (the first is #${entries[0]?.seq ?? 1}).`);
  }
  const entry = visible[index];
  const kind = isTravelPoint(entry);
  if (kind) return { ok: true, seq, kind };
  const what = entry.kind === 'model_output' ? 'a model output with tool calls (the turn is in its tool loop there)' : `a ${entry.kind} entry`;
  return refuse(`Entry #${seq} is ${what}: a valid point is a turn's end (an answer, or a turn_end) or a model input.`);
}

function nearestText(nearest: { before?: number; after?: number }): string {
  const points = [nearest.before, nearest.after].filter((s): s is number => s !== undefined);
  return points.length ? `Nearest valid point${points.length > 1 ? 's' : ''}: ${points.map((s) => `#${s}`).join(', ')}.` : 'There is no valid point yet.';
}

/** The rewind in force that took entry `seq` out, if any. */
export function rewoundBy(entries: readonly HistoryEntry[], seq: number): RewindEntry | undefined {
  let upTo = Number.POSITIVE_INFINITY;
  for (let i = entries.length - 1; i >= 0; i--) {
    const e = entries[i];
    if (e.seq > upTo) continue; // out already, and so are the rewinds among them
    if (e.seq <= seq) return undefined;
    if (e.kind === 'rewind') {
      if (seq > e.toSeq) return e;
      upTo = Math.min(upTo, e.toSeq);
    }
  }
  return undefined;
}

/**
 * The entries still in force: every entry but those a `rewind` took out (the ones after its `toSeq` and
 * before it). The rewind entries in force stay (they are not context messages; readers show them).
 * `uptoSeq`: as it was right after that entry — later entries and later rewinds are left out (a model call
 * made at `uptoSeq` saw exactly these). Returns `entries` itself when nothing was rewound, so callers
 * pay one pass and no copy; one pass backwards, whatever the number of rewinds.
 */
export function visibleEntries<T extends HistoryEntry>(entries: readonly T[], uptoSeq = Number.POSITIVE_INFINITY): readonly T[] {
  let rewound = false;
  let after = false;
  for (const e of entries) {
    if (e.seq > uptoSeq) after = true;
    else if (e.kind === 'rewind') rewound = true;
  }
  if (!rewound) return after ? entries.filter((e) => e.seq <= uptoSeq) : entries;
  const kept: T[] = [];
  let upTo = Number.POSITIVE_INFINITY; // entries above this (and below the rewind that set it) are out
  for (let i = entries.length - 1; i >= 0; i--) {
    const e = entries[i];
    if (e.seq > uptoSeq || e.seq > upTo) continue;
    kept.push(e);
    if (e.kind === 'rewind') upTo = Math.min(upTo, e.toSeq);
  }
  return kept.reverse();
}

/**
 * Like visibleEntries, but keeps every entry and says which are out: for `history --all` and the page.
 * Returns the set of seqs taken out by rewinds (empty when none).
 */
export function rewoundSeqs(entries: readonly HistoryEntry[]): Set<number> {
  const visible = visibleEntries(entries);
  if (visible === entries) return new Set();
  const kept = new Set(visible.map((e) => e.seq));
  return new Set(entries.filter((e) => !kept.has(e.seq)).map((e) => e.seq));
}
