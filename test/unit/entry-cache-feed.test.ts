/**
 * The worker's entry cache fed in-process by the agents' workflows (workflows/entry-feed.ts): a feed
 * that continues what is cached for the run — or for the run it continued from — is taken, so the model
 * call needs no `entries` query; one that does not link up is dropped, never merged. The client here
 * points at no server: any query would fail the test.
 */
import { Client, Connection } from '@temporalio/client';
import type { HistoryEntry } from '../../agent/index';
import { EntryCache } from '../../activities/entry-cache';

const nowhere = new Client({ connection: Connection.lazy({ address: '127.0.0.1:1' }) });

function entries(from: number, to: number, text = 'x'): HistoryEntry[] {
  return Array.from({ length: to - from + 1 }, (_, i) => ({
    kind: 'system_instruction' as const,
    seq: from + i,
    timestamp: '2026-01-01T00:00:00.000Z',
    instruction: `${text}${from + i}`,
  }));
}
const seqs = (list: HistoryEntry[]) => list.map((e) => e.seq);

test('a run fed from its start, then feed by feed: every model call is answered from the cache', async () => {
  const cache = new EntryCache();
  cache.feed('a', { runId: 'r1', afterSeq: 0, entries: entries(1, 1) });
  expect(seqs(await cache.range(nowhere, 'a', 'r1', 0, 1))).toEqual([1]);
  cache.feed('a', { runId: 'r1', afterSeq: 1, entries: entries(2, 3) });
  cache.feed('a', { runId: 'r1', afterSeq: 3, entries: entries(4, 5) });
  expect(seqs(await cache.range(nowhere, 'a', 'r1', 0, 5))).toEqual([1, 2, 3, 4, 5]);
  expect(seqs(await cache.range(nowhere, 'a', 'r1', 0, 3))).toEqual([1, 2, 3]); // a bound below the newest
  expect(cache.fedEntries).toBe(5);
  expect(cache.fetchedEntries).toBe(0);
});

test("continue-as-new: the new run's first feed links to the run it continued from", async () => {
  const cache = new EntryCache();
  cache.feed('a', { runId: 'r1', afterSeq: 0, entries: entries(1, 4) });
  cache.feed('a', { runId: 'r2', continuedFromRunId: 'r1', afterSeq: 4, entries: entries(5, 5) });
  expect(seqs(await cache.range(nowhere, 'a', 'r2', 0, 5))).toEqual([1, 2, 3, 4, 5]);
});

test("a continued run's first feed repeats what it carried since the last model call: the cache takes the part it lacks", async () => {
  const cache = new EntryCache();
  cache.feed('a', { runId: 'r1', afterSeq: 0, entries: entries(1, 4) });
  // r1 appended 5 and 6 after its last feed, then continued as new; r2 feeds from 3 on.
  cache.feed('a', { runId: 'r2', continuedFromRunId: 'r1', afterSeq: 3, entries: entries(4, 7) });
  expect(cache.fedEntries).toBe(4 + 3);
  expect(seqs(await cache.range(nowhere, 'a', 'r2', 0, 7))).toEqual([1, 2, 3, 4, 5, 6, 7]);
  // An overlap that disagrees with the cached entry (another history under the same seq) is dropped.
  const other = new EntryCache();
  other.feed('a', { runId: 'r1', afterSeq: 0, entries: entries(1, 4) });
  other.feed('a', { runId: 'r2', continuedFromRunId: 'r1', afterSeq: 3, entries: entries(4, 5).map((e) => ({ ...e, timestamp: '2027-01-01T00:00:00.000Z' })) });
  expect(other.fedEntries).toBe(4);
});

test('feeds that do not link up are dropped, never merged', async () => {
  const cache = new EntryCache();
  cache.feed('a', { runId: 'r1', afterSeq: 0, entries: entries(1, 2) });
  // A gap (a feed missed while the run replayed): dropped, the cache still ends at 2.
  cache.feed('a', { runId: 'r1', afterSeq: 4, entries: entries(5, 5) });
  // Another run that did not continue from r1 (a Temporal reset, an import): dropped.
  cache.feed('a', { runId: 'r9', afterSeq: 2, entries: entries(3, 3, 'other') });
  // An agent never cached, fed mid-run: nothing to continue.
  cache.feed('b', { runId: 'r1', afterSeq: 7, entries: entries(8, 8) });
  expect(cache.fedEntries).toBe(2);
  expect(seqs(await cache.range(nowhere, 'a', 'r1', 0, 2))).toEqual([1, 2]);
  // What the cache lacks is queried: with no server behind the client, that call fails.
  await expect(nowhere.connection.withDeadline(Date.now() + 500, () => cache.range(nowhere, 'a', 'r1', 0, 5))).rejects.toThrow();
});

test('a reset run (continued from the old one, but carrying no entries) replaces the cached history', async () => {
  const cache = new EntryCache();
  cache.feed('a', { runId: 'r1', afterSeq: 0, entries: entries(1, 6) });
  cache.feed('a', { runId: 'r2', continuedFromRunId: 'r1', afterSeq: 0, entries: entries(1, 1, 'fresh') });
  const got = await cache.range(nowhere, 'a', 'r2', 0, 1);
  expect(got).toEqual(entries(1, 1, 'fresh'));
});

test('the cache is bounded in bytes: it keeps what the last call needed on, and drops the least recently used agents', async () => {
  const big = (from: number, to: number) => entries(from, to, 'y'.repeat(1000));
  const bytesOf = (list: HistoryEntry[]) => list.reduce((n, e) => n + JSON.stringify(e).length, 0);
  const cache = new EntryCache(bytesOf(big(1, 25)));
  cache.feed('a', { runId: 'r', afterSeq: 0, entries: big(1, 10) });
  cache.feed('b', { runId: 'r', afterSeq: 0, entries: big(1, 10) });
  expect(cache.bytes).toBe(2 * bytesOf(big(1, 10)));
  // A call of `a` needing only the entries after 6 (older ones archived): the cache keeps 7–10.
  expect(seqs(await cache.range(nowhere, 'a', 'r', 6, 10))).toEqual([7, 8, 9, 10]);
  expect(cache.bytes).toBe(bytesOf(big(1, 10)) + bytesOf(big(7, 10)));
  // `c` passes the bound: `b`, the least recently used, goes; `a` stays and is still served from the cache.
  cache.feed('c', { runId: 'r', afterSeq: 0, entries: big(1, 12) });
  expect(cache.bytes).toBe(bytesOf(big(7, 10)) + bytesOf(big(1, 12)));
  expect(seqs(await cache.range(nowhere, 'a', 'r', 6, 10))).toEqual([7, 8, 9, 10]);
  await expect(nowhere.connection.withDeadline(Date.now() + 500, () => cache.range(nowhere, 'b', 'r', 0, 10))).rejects.toThrow();
});

test('an agent whose model calls are local is held past the bound, and a local call never queries what the cache lacks', async () => {
  const big = (from: number, to: number) => entries(from, to, 'y'.repeat(1000));
  const bytesOf = (list: HistoryEntry[]) => list.reduce((n, e) => n + JSON.stringify(e).length, 0);
  const cache = new EntryCache(bytesOf(big(1, 15)));
  // `a` calls its model locally: fed whole once, then only what is new, and held whatever the bound.
  cache.feed('a', { runId: 'r', afterSeq: 0, entries: big(1, 10), hold: true });
  cache.feed('b', { runId: 'r', afterSeq: 0, entries: big(1, 10) });
  cache.feed('a', { runId: 'r', afterSeq: 10, entries: big(11, 12), hold: true });
  cache.feed('c', { runId: 'r', afterSeq: 0, entries: big(1, 10) });
  // Over the bound: `b` went (least recently used), `a` is held although it is now the oldest.
  expect(seqs(await cache.range(nowhere, 'a', 'r', 0, 12, true))).toEqual(seqs(big(1, 12)));
  await expect(nowhere.connection.withDeadline(Date.now() + 500, () => cache.range(nowhere, 'b', 'r', 0, 10))).rejects.toThrow();
  // A local call whose entries are not all cached fails at once, saying so (a query would wait for its own task).
  await expect(cache.range(nowhere, 'a', 'r', 0, 14, true)).rejects.toMatchObject({ type: 'EntriesNotCached', nonRetryable: true });
  await expect(cache.range(nowhere, 'd', 'r', 0, 3, true)).rejects.toThrow(/lacks entries 1–3 of agent "d"/);
  // What was cached for `a` is still there after the refusal.
  expect(seqs(await cache.range(nowhere, 'a', 'r', 0, 12, true))).toEqual(seqs(big(1, 12)));
});
