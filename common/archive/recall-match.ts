/** Ranking recall's candidates and cutting the text shown for each match. */
import type { HistoryEntry } from '../../agent/index';
import { entryText } from './entry-text';

/** One entry recall found. */
export interface RecallMatch {
  seq: number;
  kind: string;
  timestamp: string;
  /** The entry's text, cut to about SNIPPET_CHARS around the first matching word. */
  text: string;
}

export const SNIPPET_CHARS = 1000;

/** A seq and how many of the query's terms its entry holds. */
export interface Candidate {
  seq: number;
  score: number;
}

/** Most terms matched first, then newest. */
export function bestCandidates(candidates: Iterable<Candidate>, limit: number): Candidate[] {
  return [...candidates].sort((a, b) => b.score - a.score || b.seq - a.seq).slice(0, limit);
}

export function recallMatch(entry: HistoryEntry, queryTerms: readonly string[]): RecallMatch {
  return { seq: entry.seq, kind: entry.kind, timestamp: entry.timestamp, text: snippet(entryText(entry), queryTerms) };
}

/** About SNIPPET_CHARS of `text` around the first of the terms it holds, marked where it was cut. */
export function snippet(text: string, queryTerms: readonly string[], chars = SNIPPET_CHARS): string {
  if (text.length <= chars) return text;
  const lower = text.toLowerCase();
  const found = queryTerms.map((t) => lower.indexOf(t)).filter((i) => i >= 0);
  const at = found.length ? Math.min(...found) : 0;
  const start = Math.max(0, Math.min(at - Math.floor(chars / 4), text.length - chars));
  const end = start + chars;
  return `${start > 0 ? '…' : ''}${text.slice(start, end)}${end < text.length ? '…' : ''}`;
}
