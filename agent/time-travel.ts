/**
 * Points an agent can travel back to (fork, rewind): a whole turn boundary, or just after an input (the
 * turn then runs again from that input). One pure function decides, so fork and rewind agree.
 */
import type { HistoryEntry } from './entries';

/** Where a fork or rewind may start: after a finished turn, or after an input (whose turn runs again). */
export type TravelPoint = { ok: true; seq: number; kind: 'turn_end' | 'model_input' } | { ok: false; reason: string };

/**
 * Whether entry `seq` of `entries` (the agent's history, or the part of it around `seq`) is a valid point:
 * a `turn_end`, an answer that ends its turn (a model output without tool calls), or a `model_input`.
 * Otherwise the reason, naming the nearest valid points before and after it.
 */
export function travelPoint(entries: readonly HistoryEntry[], seq: number): TravelPoint {
  if (!Number.isInteger(seq) || seq < 1) return { ok: false, reason: `#${seq} is not an entry number (a whole number from 1).` };
  const at = entries.findIndex((e) => e.seq === seq);
  if (at < 0) {
    const range = entries.length ? ` (it holds #${entries[0].seq}–#${entries[entries.length - 1].seq})` : ' (it is empty)';
    return { ok: false, reason: `Entry #${seq} is not in the agent's history${range}.` };
  }
  const kind = pointKind(entries[at]);
  if (kind) return { ok: true, seq, kind };
  const before = [...entries.slice(0, at)].reverse().find((e) => pointKind(e));
  const after = entries.slice(at + 1).find((e) => pointKind(e));
  const near = [before, after].filter((e): e is HistoryEntry => !!e).map((e) => `#${e.seq} (${pointKind(e) === 'model_input' ? 'an input' : "a turn's end"})`);
  return {
    ok: false,
    reason:
      `Entry #${seq} (${entries[at].kind}) is not a turn boundary or an input: a fork or rewind starts after a whole turn or just after an input` +
      (near.length ? `; the nearest are ${near.join(' and ')}.` : '.'),
  };
}

function pointKind(e: HistoryEntry): 'turn_end' | 'model_input' | undefined {
  if (e.kind === 'model_input') return 'model_input';
  if (e.kind === 'turn_end' || (e.kind === 'model_output' && e.toolCalls.length === 0)) return 'turn_end';
  return undefined;
}
