/**
 * Counts the tokens of a tiktoken encoding (o200k_base) in time linear in the text. The text is split
 * with the encoding's own pre-tokenizer regex, as tiktoken does; but a piece (one run of letters, of
 * punctuation, of spaces) can be as long as the text, and byte-pair merging is quadratic in a piece's
 * length (js-tiktoken's merge took 16 s on 8,000 letters), so pieces are merged in slices of at most
 * MAX_MERGE_BYTES: the cost per byte is bounded, and a cut inside such a run moves a count by a token
 * or so. Text is treated as plain text (`<|endoftext|>` counts as the characters it is).
 */

import { type SlicedWork, runNow } from './sliced-work';

/** The shape of js-tiktoken's rank files. */
export interface BpeRanks {
  pat_str: string;
  bpe_ranks: string;
}

/** Longest byte run merged at once; words and code are far shorter. */
export const MAX_MERGE_BYTES = 128;

/** A generator of `steps` yields after about this many bytes, so a caller can give the event loop a turn. */
const STEP_BYTES = 4096;
const LOAD_STEP_TOKENS = 10_000;

export class BpeCounter {
  private constructor(
    /** Token bytes (one char per byte, latin1) -> rank. */
    private readonly ranks: Map<string, number>,
    private readonly pattern: string,
  ) {}

  /** Builds the rank table (200,000 tokens for o200k), pausing every few thousand. */
  static *loading(bpe: BpeRanks): SlicedWork<BpeCounter> {
    const ranks = new Map<string, number>();
    // Lines are "<ignored> <rank of the first token> <token> <token> ...", tokens in base64.
    for (const line of bpe.bpe_ranks.split('\n')) {
      if (!line) continue;
      const [, offsetText, ...tokens] = line.split(' ');
      const offset = Number.parseInt(offsetText, 10);
      for (let i = 0; i < tokens.length; i++) {
        ranks.set(Buffer.from(tokens[i], 'base64').toString('latin1'), offset + i);
        if (i % LOAD_STEP_TOKENS === LOAD_STEP_TOKENS - 1) yield;
      }
    }
    return new BpeCounter(ranks, bpe.pat_str);
  }

  count(text: string): number {
    return runNow(this.steps(text));
  }

  /** Counts `text`, pausing (yielding) every few KB of work; the generator's return value is the count. */
  *steps(text: string): SlicedWork<number> {
    let tokens = 0;
    let sinceYield = 0;
    for (const match of text.matchAll(new RegExp(this.pattern, 'gu'))) {
      const piece = match[0];
      // ASCII is its own byte string; anything else goes through UTF-8.
      const bytes = Buffer.byteLength(piece) === piece.length ? piece : Buffer.from(piece, 'utf8').toString('latin1');
      if (this.ranks.has(bytes)) {
        tokens++;
        sinceYield += bytes.length;
      } else {
        for (let at = 0; at < bytes.length; at += MAX_MERGE_BYTES) {
          tokens += this.merge(bytes.slice(at, at + MAX_MERGE_BYTES));
          sinceYield += MAX_MERGE_BYTES;
          if (sinceYield >= STEP_BYTES) {
            sinceYield = 0;
            yield;
          }
        }
      }
      if (sinceYield >= STEP_BYTES) {
        sinceYield = 0;
        yield;
      }
    }
    return tokens;
  }

  /** tiktoken's merge (lowest rank first, leftmost on ties), returning how many tokens remain. */
  private merge(bytes: string): number {
    if (bytes.length <= 1 || this.ranks.has(bytes)) return 1;
    // Part i spans starts[i]..starts[i + 1] (the last start is the end); pairRanks[i] is the rank of
    // part i merged with part i + 1.
    const starts: number[] = [];
    for (let i = 0; i <= bytes.length; i++) starts.push(i);
    const pairRanks: number[] = [];
    for (let i = 0; i < bytes.length; i++) pairRanks.push(this.pairRank(bytes, starts, i));
    for (;;) {
      let best = Infinity;
      let at = -1;
      for (let i = 0; i < pairRanks.length; i++) {
        if (pairRanks[i] < best) {
          best = pairRanks[i];
          at = i;
        }
      }
      if (at < 0) return starts.length - 1;
      starts.splice(at + 1, 1);
      pairRanks.splice(at + 1, 1);
      pairRanks[at] = this.pairRank(bytes, starts, at);
      if (at > 0) pairRanks[at - 1] = this.pairRank(bytes, starts, at - 1);
    }
  }

  private pairRank(bytes: string, starts: readonly number[], i: number): number {
    return i + 2 < starts.length ? (this.ranks.get(bytes.slice(starts[i], starts[i + 2])) ?? Infinity) : Infinity;
  }
}
