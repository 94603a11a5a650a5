/**
 * A segment's term index: every term of its entries' text (entry-text.ts) with the seqs of the entries
 * that hold it. Stored as a blob of its own beside the segment, so recall reads the small indexes and
 * only the segments that match.
 */
import { type HistoryEntry, visibleEntries } from '../../agent/index';
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
  // What a rewind took out is not the model's to recall: a rewind is sealed in the segment of its point
  // (see archive-sealer), so the segment's own entries say what it took out.
  for (const entry of visibleEntries(entries)) for (const term of termsOf(entryText(entry))) (terms[term] ??= []).push(entry.seq);
  return { format: TERM_INDEX_FORMAT, version: 1, segment: segmentHash, terms };
}

/**
 * A term index ready for matching, compact in memory (it is cached for every segment an agent has):
 * the terms sorted, for prefix lookups, and their seqs in one typed array.
 */
export class TermLookup {
  private readonly sorted: string[];
  private readonly slots = new Map<string, number>();
  /** Term i's seqs are postings[starts[i]] … postings[starts[i + 1] - 1]. */
  private readonly starts: Int32Array;
  private readonly postings: Int32Array;
  /** About the heap it takes, for the cache's bound. */
  readonly heapBytes: number;

  constructor(terms: Record<string, readonly number[]>) {
    this.sorted = Object.keys(terms).sort();
    let total = 0;
    for (const term of this.sorted) total += terms[term].length;
    this.starts = new Int32Array(this.sorted.length + 1);
    this.postings = new Int32Array(total);
    let at = 0;
    let termBytes = 0;
    this.sorted.forEach((term, i) => {
      this.slots.set(term, i);
      this.starts[i] = at;
      this.postings.set(terms[term], at);
      at += terms[term].length;
      termBytes += 2 * term.length + 80; // the string, its Map entry and its place in `sorted`
    });
    this.starts[this.sorted.length] = at;
    this.heapBytes = termBytes + 4 * (total + this.sorted.length);
  }

  /** Seq → how many of the query's terms its entry holds (exactly, or as a prefix for longer query terms). */
  match(queryTerms: readonly string[], into = new Map<number, number>()): Map<number, number> {
    for (const q of queryTerms) {
      const seqs = new Set<number>();
      const exact = this.slots.get(q);
      if (exact !== undefined) this.seqsAt(exact, seqs);
      if (q.length >= PREFIX_MIN_LENGTH) for (let i = this.firstAtOrAfter(q); i < this.sorted.length && this.sorted[i].startsWith(q); i++) this.seqsAt(i, seqs);
      for (const seq of seqs) into.set(seq, (into.get(seq) ?? 0) + 1);
    }
    return into;
  }

  private seqsAt(slot: number, into: Set<number>): void {
    for (let p = this.starts[slot]; p < this.starts[slot + 1]; p++) into.add(this.postings[p]);
  }

  private firstAtOrAfter(prefix: string): number {
    let lo = 0;
    let hi = this.sorted.length;
    while (lo < hi) {
      const mid = (lo + hi) >>> 1;
      if (this.sorted[mid] < prefix) lo = mid + 1;
      else hi = mid;
    }
    return lo;
  }
}
