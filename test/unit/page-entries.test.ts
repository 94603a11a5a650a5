/** Pages of an agent's history for the entries query: bounds, limits, the ~1 MB cap, and paging to the end. */
import type { HistoryEntry } from '../../agent/index';
import { pageEntries } from '../../workflows/agent-views';

/** `count` entries from seq `first` on, each holding about `bytes` of text. */
function entries(count: number, bytes = 10, first = 1): HistoryEntry[] {
  return Array.from({ length: count }, (_, i) => ({
    kind: 'system_instruction' as const,
    seq: first + i,
    timestamp: '2026-01-01T00:00:00.000Z',
    instruction: 'é'.repeat(Math.ceil(bytes / 2)), // two bytes in UTF-8: the cap counts bytes, not characters
  }));
}
const seqs = (page: { entries: HistoryEntry[] }) => page.entries.map((e) => e.seq);

test('no entries: an empty last page', () => {
  expect(pageEntries([], {})).toEqual({ entries: [], nextAfterSeq: null, lastSeq: 0 });
});

test('by default all entries, up to 500 at a time', () => {
  const all = entries(7);
  expect(pageEntries(all, {})).toEqual({ entries: all, nextAfterSeq: null, lastSeq: 7 });
  const many = entries(620);
  const first = pageEntries(many, {});
  expect(seqs(first)).toEqual(many.slice(0, 500).map((e) => e.seq));
  expect(first).toMatchObject({ nextAfterSeq: 500, lastSeq: 620 });
});

test('afterSeq and uptoSeq bound the page; the page ends at uptoSeq even with entries after it', () => {
  const all = entries(10);
  expect(pageEntries(all, { afterSeq: 3, uptoSeq: 6 })).toEqual({ entries: all.slice(3, 6), nextAfterSeq: null, lastSeq: 10 });
  expect(pageEntries(all, { afterSeq: 10 })).toEqual({ entries: [], nextAfterSeq: null, lastSeq: 10 });
  expect(pageEntries(all, { afterSeq: 99 })).toEqual({ entries: [], nextAfterSeq: null, lastSeq: 10 });
  expect(pageEntries(all, { uptoSeq: 0 })).toEqual({ entries: [], nextAfterSeq: null, lastSeq: 10 });
});

test('limit is kept between 1 and 500', () => {
  const many = entries(600);
  expect(seqs(pageEntries(many, { limit: 2 }))).toEqual([1, 2]);
  expect(pageEntries(many, { limit: 0 }).entries).toHaveLength(1);
  expect(pageEntries(many, { limit: -5 }).entries).toHaveLength(1);
  expect(pageEntries(many, { limit: 10_000 }).entries).toHaveLength(500);
});

test('a page stops before it would pass about 1 MB of JSON, but always holds at least one entry', () => {
  const big = entries(5, 300_000); // ~300 KB each
  const page = pageEntries(big, {});
  expect(seqs(page)).toEqual([1, 2, 3]);
  expect(page.nextAfterSeq).toBe(3);
  expect(Buffer.byteLength(JSON.stringify(page))).toBeLessThan(1024 * 1024 + 1024);

  const huge = entries(2, 3_000_000); // one entry over the cap alone: still returned, so paging moves on
  expect(seqs(pageEntries(huge, {}))).toEqual([1]);
  expect(pageEntries(huge, {}).nextAfterSeq).toBe(1);
});

test('following nextAfterSeq visits every entry once, in order, and ends with null', () => {
  // Mixed sizes and a history that does not start at 1 (as after continue-as-new keeps a tail).
  const all = [...entries(40, 10, 100), ...entries(6, 400_000, 140), ...entries(30, 10, 146)];
  const seen: number[] = [];
  let afterSeq: number | undefined;
  for (let pages = 0; pages < 50; pages++) {
    const page = pageEntries(all, { afterSeq, limit: 25 });
    seen.push(...seqs(page));
    if (page.nextAfterSeq === null) break;
    afterSeq = page.nextAfterSeq;
  }
  expect(seen).toEqual(all.map((e) => e.seq));
});
