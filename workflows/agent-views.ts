/** Pages of an agent's history for the `entries` query. */
import { type HistoryEntry, utf8Length } from '../agent/index';
import type { EntriesPage, EntriesRequest } from './messages';

export const PAGE_MAX_ENTRIES = 500;
/** Well under gRPC's 4 MB message limit, whatever the entries hold. */
export const PAGE_MAX_BYTES = 1024 * 1024;

/** `archivedThroughSeq`: entries up to it are archived (not in `entries`); the page says so. */
export function pageEntries(entries: readonly HistoryEntry[], req: EntriesRequest, archivedThroughSeq?: number): EntriesPage {
  const page = pageOf(entries, req);
  if (!archivedThroughSeq) return page;
  return { ...page, lastSeq: Math.max(page.lastSeq, archivedThroughSeq), archivedThroughSeq };
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
