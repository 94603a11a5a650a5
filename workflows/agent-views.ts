/** Pages of an agent's history for the `entries` query. */
import { type HistoryEntry, rewoundSeqs, utf8Length } from '../agent/index';
import type { EntriesPage, EntriesRequest } from './messages';

export const PAGE_MAX_ENTRIES = 500;
/** Well under gRPC's 4 MB message limit, whatever the entries hold. */
export const PAGE_MAX_BYTES = 1024 * 1024;

/** `archivedThroughSeq`: entries up to it are archived (not in `entries`); the page says so. */
export function pageEntries(
  entries: readonly HistoryEntry[],
  req: EntriesRequest,
  archivedThroughSeq?: number,
  visible?: readonly HistoryEntry[],
): EntriesPage {
  const plain = pageOf(entries, req);
  const page = visible && visible !== entries ? withRewound(plain, entries) : plain;
  if (!archivedThroughSeq) return page;
  return { ...page, lastSeq: Math.max(page.lastSeq, archivedThroughSeq), archivedThroughSeq };
}

/** The page with the ranges of its entries a rewind took out (see EntriesPage.rewound); computed only when a rewind is in the working set. */
function withRewound(page: EntriesPage, entries: readonly HistoryEntry[]): EntriesPage {
  if (!page.entries.length) return page;
  const out = rewoundSeqs(entries);
  const ranges: Array<[number, number]> = [];
  for (const e of page.entries) {
    if (!out.has(e.seq)) continue;
    const last = ranges.at(-1);
    if (last && last[1] === e.seq - 1) last[1] = e.seq;
    else ranges.push([e.seq, e.seq]);
  }
  return ranges.length ? { ...page, rewound: ranges } : page;
}

function pageOf(entries: readonly HistoryEntry[], req: EntriesRequest): EntriesPage {
  const afterSeq = req.afterSeq ?? 0;
  const uptoSeq = req.uptoSeq ?? Number.POSITIVE_INFINITY;
  const limit = Math.min(Math.max(req.limit ?? PAGE_MAX_ENTRIES, 1), PAGE_MAX_ENTRIES);
  const lastSeq = entries.length ? entries[entries.length - 1].seq : 0;
  const page: HistoryEntry[] = [];
  let bytes = 0;
  // Entries are in seq order; a binary search would do, but pages start near the end in practice.
  let i = entries.findIndex((e) => e.seq > afterSeq);
  if (i < 0) return { entries: [], nextAfterSeq: null, lastSeq };
  for (; i < entries.length && entries[i].seq <= uptoSeq; i++) {
    const size = utf8Length(JSON.stringify(entries[i]));
    if (page.length >= limit || (page.length > 0 && bytes + size > PAGE_MAX_BYTES)) break;
    page.push(entries[i]);
    bytes += size;
  }
  const more = i < entries.length && entries[i].seq <= uptoSeq;
  return { entries: page, nextAfterSeq: more ? page[page.length - 1].seq : null, lastSeq };
}
