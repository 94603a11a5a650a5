/** The JSON documents the archive stores: a segment and a manifest (term indexes: term-index.ts). */
import type { HistoryEntry, JsonValue } from '../../agent/index';
import type { SegmentRef } from '../../agent/archive';

export const SEGMENT_FORMAT = 'livecontext.archive-segment';
export const MANIFEST_FORMAT = 'livecontext.archive-manifest';

/** The state before a segment's first entry: what its entries build on (the instruction, widget states). */
export interface SegmentBefore {
  systemInstruction: string;
  widgets: Record<string, JsonValue>;
}

/** What a segment holds. Shared by the store's cache: read it, do not change it. */
export interface SegmentContent {
  before: SegmentBefore;
  entries: HistoryEntry[];
}

export interface SegmentDoc extends SegmentContent {
  format: typeof SEGMENT_FORMAT;
  version: 1;
}

export interface ManifestDoc {
  format: typeof MANIFEST_FORMAT;
  version: 1;
  /** The key of the manifest with the older references, if any. */
  previous?: string;
  /** References, oldest first. */
  segments: SegmentRef[];
}

/** What is wrong with a parsed segment document, or undefined when it is one. */
export function segmentProblem(doc: unknown): string | undefined {
  const d = doc as Partial<SegmentDoc> | null;
  if (!d || typeof d !== 'object' || d.format !== SEGMENT_FORMAT) return 'it is not an archive segment';
  if (d.version !== 1) return `it is a version ${String(d.version)} segment; this livecontext reads version 1 (upgrade it)`;
  if (!Array.isArray(d.entries) || !d.before || typeof d.before !== 'object') return 'it lacks its entries or the state before them';
  return undefined;
}

export function manifestProblem(doc: unknown): string | undefined {
  const d = doc as Partial<ManifestDoc> | null;
  if (!d || typeof d !== 'object' || d.format !== MANIFEST_FORMAT) return 'it is not an archive manifest';
  if (d.version !== 1) return `it is a version ${String(d.version)} manifest; this livecontext reads version 1 (upgrade it)`;
  if (!Array.isArray(d.segments)) return 'it lists no segments';
  return undefined;
}
