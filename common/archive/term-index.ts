/**
 * A segment's term index: every term of its entries' text (entry-text.ts) with the seqs of the entries
 * that hold it. Stored as a blob of its own beside the segment, so recall reads the small indexes and
 * only the segments that match.
 */
import type { HistoryEntry } from '../../agent/index';
import { entryText } from './entry-text';
import { PREFIX_MIN_LENGTH, termsOf } from './terms';

export const TERM_INDEX_FORMAT = 'livecontext.archive-terms';

/** What the index blob holds: term → seqs, ascending. */
export interface TermIndexDoc {
  format: typeof TERM_INDEX_FORMAT;
  version: 1;
  /** The hash of the segment it indexes. */
  segment: string;
  terms: Record<string, number[]>;
}

export function buildTermIndex(segmentHash: string, entries: readonly HistoryEntry[]): TermIndexDoc {
  const terms: Record<string, number[]> = Object.create(null) as Record<string, number[]>;
  for (const entry of entries) for (const term of termsOf(entryText(entry))) (terms[term] ??= []).push(entry.seq);
  return { format: TERM_INDEX_FORMAT, version: 1, segment: segmentHash, terms };
}

/** A term index ready for matching: terms in a Map and sorted, for prefix lookups. */
export class TermLookup {
  private readonly sorted: string[];
  private readonly byTerm: Map<string, readonly number[]>;

  constructor(terms: Record<string, readonly number[]>) {
    this.byTerm = new Map(Object.entries(terms));
    this.sorted = [...this.byTerm.keys()].sort();
  }

  /** Seq → how many of the query's terms its entry holds (exactly, or as a prefix for longer query terms). */
  match(queryTerms: readonly string[], into = new Map<number, number>()): Map<number, number> {
    for (const q of queryTerms) {
      const seqs = new Set<number>(this.byTerm.get(q) ?? []);
      if (q.length >= PREFIX_MIN_LENGTH) for (const term of this.startingWith(q)) for (const seq of this.byTerm.get(term)!) seqs.add(seq);
      for (const seq of seqs) into.set(seq, (into.get(seq) ?? 0) + 1);
    }
    return into;
  }

  private *startingWith(prefix: string): Generator<string> {
    let lo = 0;
    let hi = this.sorted.length;
    while (lo < hi) {
      const mid = (lo + hi) >>> 1;
      if (this.sorted[mid] < prefix) lo = mid + 1;
      else hi = mid;
    }
    for (let i = lo; i < this.sorted.length && this.sorted[i].startsWith(prefix); i++) if (this.sorted[i] !== prefix) yield this.sorted[i];
  }
}
