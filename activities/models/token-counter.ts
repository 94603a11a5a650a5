/**
 * A model's tokenizer for the context budget, safe on a worker's shared event loop: counting is linear
 * in the text (BpeCounter), counts are memoised per text (every model call recounts the whole context,
 * and its messages rarely change), a text over EXACT_CHARS is counted on its first EXACT_CHARS and
 * extrapolated, and `prepare` counts in slices that give the event loop a turn every few milliseconds.
 * `count` stays synchronous because the context is rendered by pure code shared with the workflow.
 */
import { createHash } from 'node:crypto';
import type { TextTokenizer } from '../../agent/index';
import { BpeCounter, type BpeRanks } from './bpe-counter';
import { type SlicedWork, runNow, runSliced } from './sliced-work';

/** Longest text counted exactly (about 250,000 tokens); the rest is extrapolated at the same ratio. */
export const EXACT_CHARS = 1 << 20;

/** Counts kept: enough for the contexts of many agents. */
const MEMO_ENTRIES = 50_000;

export class TokenCounter {
  private bpe: BpeCounter | undefined;
  private loading: Promise<BpeCounter> | undefined;
  /** Hash of a text -> its count, oldest first. */
  private readonly memo = new Map<string, number>();

  constructor(private readonly ranks: () => BpeRanks) {}

  /** The count of `text`: memoised, or counted now (in linear time) if `prepare` has not seen it. */
  readonly count: TextTokenizer = (text) => {
    const key = keyOf(text);
    const known = this.recall(key);
    if (known !== undefined) return known;
    this.bpe ??= runNow(BpeCounter.loading(this.ranks()));
    return this.remember(key, runNow(countSteps(this.bpe, text)));
  };

  /** Counts the texts not memoised yet, in slices that leave the event loop free. */
  async prepare(texts: Iterable<string>): Promise<void> {
    await runSliced(this.counting(await this.load(), texts));
  }

  private *counting(bpe: BpeCounter, texts: Iterable<string>): SlicedWork<void> {
    for (const text of texts) {
      const key = keyOf(text);
      if (this.recall(key) === undefined) this.remember(key, yield* countSteps(bpe, text));
      yield; // many small texts add up too
    }
  }

  private load(): Promise<BpeCounter> {
    if (this.bpe) return Promise.resolve(this.bpe);
    this.loading ??= runSliced(BpeCounter.loading(this.ranks())).then(
      (bpe) => (this.bpe ??= bpe),
      (err: unknown) => {
        this.loading = undefined; // let a later call try again
        throw err;
      },
    );
    return this.loading;
  }

  private recall(key: string): number | undefined {
    const count = this.memo.get(key);
    if (count !== undefined) {
      this.memo.delete(key); // most recently used last
      this.memo.set(key, count);
    }
    return count;
  }

  private remember(key: string, count: number): number {
    this.memo.set(key, count);
    if (this.memo.size > MEMO_ENTRIES) this.memo.delete(this.memo.keys().next().value!);
    return count;
  }
}

/** A digest, so the memo does not keep large texts alive. */
function keyOf(text: string): string {
  return createHash('sha256').update(text).digest('base64');
}

function* countSteps(bpe: BpeCounter, text: string): SlicedWork<number> {
  if (text.length <= EXACT_CHARS) return yield* bpe.steps(text);
  const head = text.slice(0, EXACT_CHARS);
  const headTokens = yield* bpe.steps(head);
  const headBytes = Buffer.byteLength(head);
  return headTokens + Math.ceil(((Buffer.byteLength(text) - headBytes) * headTokens) / headBytes);
}
