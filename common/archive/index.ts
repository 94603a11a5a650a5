/** The agent's archive in the blob store (see archive-store.ts). Not for workflow code. */
export { ArchiveStore, type ArchiveStoreOptions, ArchiveReadError, DEFAULT_ARCHIVE_CACHE_BYTES, describeStore } from './archive-store';
export { type SegmentBefore, type SegmentContent, SEGMENT_FORMAT, MANIFEST_FORMAT } from './segment-format';
export { type RecallMatch, SNIPPET_CHARS } from './recall-match';
export { ARCHIVE_TOOL_NAMES, entryText } from './entry-text';
export { canonicalJson } from './canonical-json';
export { termsOf } from './terms';
