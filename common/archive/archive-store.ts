/**
 * The agent's archive in the blob store: sealed segments of entries, each with a term index, and the
 * chain of manifests that lists the older segment references. Writing and reading happen here, for the
 * activities, the worker and clients (import writes segments from the client); workflow code never
 * imports this, it only keeps the references (agent/archive.ts).
 *
 * A segment's `hash` is the sha256 of its canonical JSON — what it holds, however it is stored; its
 * `key` is the blob store's key for the stored bytes (archive-blob.ts: gzip, then encrypted with the
 * codec keys when they are set). Reads verify the hash and are cached by it (LRU, bounded by the heap it
 * takes, estimated: LIVECONTEXT_ARCHIVE_CACHE_MB).
 */
import { createHash } from 'node:crypto';
import type { HistoryEntry } from '../../agent/index';
import { type ArchiveIndex, type ArchiveState, type SegmentRef, archivedRewound, entryBytes, estimateTokens, stateAfter } from '../../agent/archive';
import { type BlobStore, FileBlobStore } from '../codec/blob-store';
import { blobStoreFromEnv } from '../codec/blob-store-from-env';
import { EncryptionCodec, type EncryptionKeys, parseKeys } from '../codec/encryption-codec';
import { S3BlobStore } from '../codec/s3-blob-store';
import { ArchiveBlobError, openBlob, sealBlob } from './archive-blob';
import { ByteLru } from './byte-lru';
import { canonicalJson } from './canonical-json';
import { type Candidate, type RecallMatch, bestCandidates, recallMatch } from './recall-match';
import { MANIFEST_FORMAT, type ManifestDoc, SEGMENT_FORMAT, type SegmentContent, manifestProblem, segmentProblem } from './segment-format';
import { TERM_INDEX_FORMAT, TermLookup, buildTermIndex } from './term-index';
import { entryText } from './entry-text';
import { termsOf } from './terms';

export const DEFAULT_ARCHIVE_CACHE_BYTES = 64 * 1024 * 1024;
const DEFAULT_RECALL_LIMIT = 10;
/** The small blob beside a segment that holds the state after it. */
const STATE_FORMAT = 'livecontext.archive-state';
const MAX_RECALL_LIMIT = 50;
const PARALLEL_READS = 8;

export interface ArchiveStoreOptions {
  /** Default: the blob store the environment names (blobStoreFromEnv). */
  store?: BlobStore;
  /** Encrypts what is written; decrypts with any of the keys. Default: none (plain, compressed). */
  encryption?: EncryptionKeys;
  /** About the heap the read cache may take (segments, term indexes, manifests); default 64 MiB. */
  cacheBytes?: number;
}

/** A blob of the archive that cannot be read, saying which and what to set. */
export class ArchiveReadError extends Error {
  constructor(message: string) {
    super(message);
    this.name = new.target.name;
  }
}

export class ArchiveStore {
  readonly store: BlobStore;
  private readonly codec?: EncryptionCodec;
  private readonly cache: ByteLru<unknown>;

  constructor(options: ArchiveStoreOptions = {}) {
    this.store = options.store ?? blobStoreFromEnv();
    this.codec = options.encryption ? new EncryptionCodec(options.encryption) : undefined;
    this.cache = new ByteLru(options.cacheBytes ?? DEFAULT_ARCHIVE_CACHE_BYTES);
  }

  /** The blob store and codec keys every worker and client uses (LIVECONTEXT_BLOB_*, LIVECONTEXT_CODEC_KEYS), LIVECONTEXT_ARCHIVE_CACHE_MB. */
  static fromEnv(env: NodeJS.ProcessEnv = process.env): ArchiveStore {
    const mb = env.LIVECONTEXT_ARCHIVE_CACHE_MB;
    if (mb !== undefined && mb !== '' && !(Number(mb) >= 0)) throw new Error(`LIVECONTEXT_ARCHIVE_CACHE_MB must be a number of MiB (got "${mb}").`);
    return new ArchiveStore({
      store: blobStoreFromEnv(env),
      ...(env.LIVECONTEXT_CODEC_KEYS ? { encryption: parseKeys(env.LIVECONTEXT_CODEC_KEYS) } : {}),
      ...(mb ? { cacheBytes: Number(mb) * 1024 * 1024 } : {}),
    });
  }

  /** Stores a segment and its term index; returns the reference the agent keeps. */
  async writeSegment(content: SegmentContent): Promise<SegmentRef> {
    const { entries } = content;
    if (entries.length === 0) throw new Error('An archive segment holds at least one entry.');
    for (let i = 1; i < entries.length; i++) {
      if (!(entries[i].seq > entries[i - 1].seq))
        throw new Error(`Archive segment entries must be in seq order (seq ${entries[i].seq} follows ${entries[i - 1].seq}).`);
    }
    const fromSeq = entries[0].seq;
    const toSeq = entries[entries.length - 1].seq;
    const json = canonicalJson({ format: SEGMENT_FORMAT, version: 1, before: content.before, entries });
    const hash = sha256(json);
    const key = await this.put(json, `the archive segment of seq ${fromSeq}–${toSeq}`);
    const terms = buildTermIndex(hash, entries);
    const indexJson = canonicalJson(terms);
    const indexKey = await this.put(indexJson, `the term index of seq ${fromSeq}–${toSeq}`);
    this.cache.set(`segment:${hash}`, content, heapOfJson(json));
    const lookup = new TermLookup(terms.terms);
    this.cache.set(`terms:${indexKey}`, lookup, lookup.heapBytes);
    const state = stateAfter(content.before, entries);
    const stateJson = canonicalJson({ format: STATE_FORMAT, version: 1, segment: hash, ...state });
    const stateKey = await this.put(stateJson, `the state after seq ${toSeq}`);
    this.cache.set(`state:${stateKey}`, state, heapOfJson(stateJson));
    return {
      key,
      hash,
      fromSeq,
      toSeq,
      entries: entries.length,
      bytes: entries.reduce((sum, e) => sum + entryBytes(e), 0),
      tokens: estimateTokens(JSON.stringify(entries)),
      indexKey,
      stateKey,
    };
  }

  /** Stores a manifest listing `segments` (oldest first) after the manifest `previous`; returns its key. */
  async writeManifest(segments: SegmentRef[], previous?: string): Promise<string> {
    const doc: ManifestDoc = { format: MANIFEST_FORMAT, version: 1, ...(previous ? { previous } : {}), segments };
    const json = canonicalJson(doc);
    const key = await this.put(json, 'an archive manifest');
    this.cache.set(`manifest:${key}`, doc, heapOfJson(json));
    return key;
  }

  /** The segment's content, checked against its hash. Shared with the cache: do not change it. */
  async readSegment(ref: SegmentRef): Promise<SegmentContent> {
    const cached = this.cache.get(`segment:${ref.hash}`) as SegmentContent | undefined;
    if (cached) return cached;
    const what = `Archive segment seq ${ref.fromSeq}–${ref.toSeq} (blob ${ref.key})`;
    const json = await this.open(ref.key, what);
    if (sha256(json) !== ref.hash)
      throw new ArchiveReadError(`${what} in the blob store ${describeStore(this.store)} is corrupt: its content does not match its hash ${ref.hash}.`);
    const doc = JSON.parse(json) as unknown;
    const problem = segmentProblem(doc);
    if (problem) throw new ArchiveReadError(`${what} cannot be read: ${problem}.`);
    const { before, entries } = doc as SegmentContent;
    const content: SegmentContent = { before, entries };
    this.cache.set(`segment:${ref.hash}`, content, heapOfJson(json));
    return content;
  }

  /**
   * The state after the segment (the instruction in force, widget states): from its small state blob,
   * or, for a segment written without one, from the segment itself.
   */
  async readState(ref: SegmentRef): Promise<ArchiveState> {
    if (!ref.stateKey) {
      const segment = await this.readSegment(ref);
      return stateAfter(segment.before, segment.entries);
    }
    const cached = this.cache.get(`state:${ref.stateKey}`) as ArchiveState | undefined;
    if (cached) return cached;
    const what = `The state after archive segment seq ${ref.fromSeq}–${ref.toSeq} (blob ${ref.stateKey})`;
    const json = await this.open(ref.stateKey, what);
    const doc = JSON.parse(json) as Partial<ArchiveState> & { format?: string; segment?: string };
    if (
      doc.format !== STATE_FORMAT ||
      doc.segment !== ref.hash ||
      typeof doc.systemInstruction !== 'string' ||
      !doc.widgets ||
      typeof doc.widgets !== 'object'
    ) {
      throw new ArchiveReadError(`${what} is not the state after segment ${ref.hash}.`);
    }
    const state: ArchiveState = { systemInstruction: doc.systemInstruction, widgets: doc.widgets };
    this.cache.set(`state:${ref.stateKey}`, state, heapOfJson(json));
    return state;
  }

  /** Every segment reference, oldest first: the manifest chain walked back, then the inline ones. */
  async allSegments(index: ArchiveIndex): Promise<SegmentRef[]> {
    if (!index.manifest) return [...index.segments];
    const lists: SegmentRef[][] = [];
    let count = 0;
    for (let key: string | undefined = index.manifest.key; key;) {
      const manifest = await this.readManifest(key);
      lists.unshift(manifest.segments);
      count += manifest.segments.length;
      if (count > index.manifest.segments) break; // more than the index says: a loop or the wrong chain
      key = manifest.previous;
    }
    if (count !== index.manifest.segments) {
      throw new ArchiveReadError(
        `The archive's manifest chain from ${index.manifest.key} lists ${count} segments where the agent's index counts ${index.manifest.segments}: the chain is damaged.`,
      );
    }
    return [...lists.flat(), ...index.segments];
  }

  /** Archived entries after `afterSeq` (through `uptoSeq`, at most `limit`), in order, reading only the segments they are in. */
  async entries(index: ArchiveIndex, range: { afterSeq: number; uptoSeq?: number; limit?: number }): Promise<HistoryEntry[]> {
    const upto = Math.min(range.uptoSeq ?? Number.POSITIVE_INFINITY, index.throughSeq);
    const limit = range.limit ?? Number.POSITIVE_INFINITY;
    const out: HistoryEntry[] = [];
    if (range.afterSeq >= upto || limit <= 0) return out;
    // The manifest chain lists only older segments: leave it unread when the range starts after them.
    const refs = range.afterSeq >= (index.manifest?.throughSeq ?? 0) ? index.segments : await this.allSegments(index);
    for (const ref of refs) {
      if (ref.toSeq <= range.afterSeq) continue;
      if (ref.fromSeq > upto) break;
      for (const e of (await this.readSegment(ref)).entries) {
        if (e.seq <= range.afterSeq) continue;
        if (e.seq > upto) return out;
        out.push(e);
        if (out.length >= limit) return out;
      }
    }
    return out;
  }

  /**
   * Full-text search over the archived entries and `extra` ones (the working set's, say): entries
   * holding most of the query's words first, then the newest. Reads every segment's term index (cached)
   * but only the segments that hold a match shown.
   */
  async search(index: ArchiveIndex, query: string, options: { limit?: number; extra?: readonly HistoryEntry[] } = {}): Promise<RecallMatch[]> {
    const queryTerms = termsOf(query);
    if (queryTerms.length === 0) return [];
    const limit = Math.min(Math.max(Math.floor(options.limit ?? DEFAULT_RECALL_LIMIT), 1), MAX_RECALL_LIMIT);
    const candidates: Candidate[] = [];
    const segmentOf = new Map<number, SegmentRef>();
    const refs = await this.allSegments(index);
    // A few indexes read at a time (an object store answers in parallel), and let go once matched.
    for (let i = 0; i < refs.length; i += PARALLEL_READS) {
      const batch = refs.slice(i, i + PARALLEL_READS);
      const lookups = await Promise.all(batch.map((ref) => this.termLookup(ref)));
      lookups.forEach((lookup, j) => {
        for (const [seq, score] of lookup.match(queryTerms)) {
          if (archivedRewound(index, seq)) continue; // a rewind into the archive took it out: not the model's to recall
          candidates.push({ seq, score });
          segmentOf.set(seq, batch[j]);
        }
      });
    }
    const extra = new Map<number, HistoryEntry>();
    for (const e of options.extra ?? []) {
      if (e.seq <= index.throughSeq) continue; // archived already
      const score = new TermLookup(Object.fromEntries(termsOf(entryText(e)).map((t) => [t, [e.seq]]))).match(queryTerms).get(e.seq);
      if (!score) continue;
      candidates.push({ seq: e.seq, score });
      extra.set(e.seq, e);
    }
    const matches: RecallMatch[] = [];
    for (const { seq } of bestCandidates(candidates, limit)) {
      const ref = segmentOf.get(seq);
      const entry = ref ? (await this.readSegment(ref)).entries.find((e) => e.seq === seq) : extra.get(seq);
      if (entry) matches.push(recallMatch(entry, queryTerms));
    }
    return matches;
  }

  private async termLookup(ref: SegmentRef): Promise<TermLookup> {
    if (!ref.indexKey) {
      // A segment written without its index: index it from its content.
      const cached = this.cache.get(`terms:${ref.hash}`) as TermLookup | undefined;
      if (cached) return cached;
      const built = buildTermIndex(ref.hash, (await this.readSegment(ref)).entries);
      const lookup = new TermLookup(built.terms);
      this.cache.set(`terms:${ref.hash}`, lookup, lookup.heapBytes);
      return lookup;
    }
    const cached = this.cache.get(`terms:${ref.indexKey}`) as TermLookup | undefined;
    if (cached) return cached;
    const what = `The term index of archive segment seq ${ref.fromSeq}–${ref.toSeq} (blob ${ref.indexKey})`;
    const json = await this.open(ref.indexKey, what);
    const doc = JSON.parse(json) as { format?: string; version?: number; segment?: string; terms?: Record<string, number[]> };
    if (doc.format !== TERM_INDEX_FORMAT || doc.version !== 1 || doc.segment !== ref.hash || !doc.terms || typeof doc.terms !== 'object') {
      throw new ArchiveReadError(`${what} is not the term index of segment ${ref.hash}.`);
    }
    const lookup = new TermLookup(doc.terms);
    this.cache.set(`terms:${ref.indexKey}`, lookup, lookup.heapBytes);
    return lookup;
  }

  private async readManifest(key: string): Promise<ManifestDoc> {
    const cached = this.cache.get(`manifest:${key}`) as ManifestDoc | undefined;
    if (cached) return cached;
    const what = `Archive manifest ${key}`;
    const json = await this.open(key, what);
    const doc = JSON.parse(json) as ManifestDoc;
    const problem = manifestProblem(doc);
    if (problem) throw new ArchiveReadError(`${what} cannot be read: ${problem}.`);
    this.cache.set(`manifest:${key}`, doc, heapOfJson(json));
    return doc;
  }

  private async put(json: string, what: string): Promise<string> {
    const bytes = await sealBlob(json, this.codec);
    try {
      return await this.store.put(bytes);
    } catch (err) {
      throw new Error(`Cannot write ${what}: ${(err as Error).message}`);
    }
  }

  /** A blob's JSON text, or an error naming the blob, the store and what to set. */
  private async open(key: string, what: string): Promise<string> {
    const where = describeStore(this.store);
    let bytes: Uint8Array;
    try {
      bytes = await this.store.get(key);
    } catch (err) {
      throw new ArchiveReadError(
        `${what} cannot be read from the blob store ${where}: ${(err as Error).message} Set LIVECONTEXT_BLOB_DIR, or LIVECONTEXT_BLOB_S3_BUCKET and its settings, to the store the agent's workers write to.`,
      );
    }
    try {
      return await openBlob(bytes, this.codec);
    } catch (err) {
      if (!(err instanceof ArchiveBlobError)) throw err;
      const fix =
        err.reason === 'corrupt'
          ? 'The blob is damaged; restore it from a backup of the blob store.'
          : 'Set LIVECONTEXT_CODEC_KEYS to include the key it was written with (the same keys as the workers).';
      throw new ArchiveReadError(`${what} in the blob store ${where} cannot be read: ${err.message}. ${fix}`);
    }
  }
}

/** About the heap parsed JSON takes: objects and strings come to roughly twice its text. */
function heapOfJson(json: string): number {
  return 2 * json.length;
}

function sha256(text: string): string {
  return createHash('sha256').update(text, 'utf8').digest('hex');
}

/** Where a blob store points, for messages (no credentials). */
export function describeStore(store: BlobStore): string {
  if (store instanceof S3BlobStore) return store.describe();
  if (store instanceof FileBlobStore) return store.dir;
  return store.constructor?.name ?? 'blob store';
}
