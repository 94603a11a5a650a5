/**
 * The archive's storage on a real folder blob store: segments round trip and are content-addressed,
 * encrypted blobs hold no plaintext, damage is reported clearly, manifests chain, and reads and searches
 * open only the blobs they need (counted at the blob store).
 */
import { randomBytes } from 'node:crypto';
import { mkdtempSync, readFileSync, readdirSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import type { HistoryEntry } from '../../agent/index';
import { type ArchiveIndex, type SegmentRef, archiveAfterFold, emptyArchive, entryBytes, foldable } from '../../agent/archive';
import { ArchiveReadError, ArchiveStore, type SegmentContent } from '../../common/archive/index';
import { type BlobStore, FileBlobStore } from '../../common/codec/blob-store';
import { parseKeys } from '../../common/codec/encryption-codec';

const tempDir = () => mkdtempSync(path.join(tmpdir(), 'lc-archive-'));
const keys = () => parseKeys(`k1:${randomBytes(32).toString('base64')}`);
const before = { systemInstruction: 'Be brief.', widgets: { memory_notebook: '' } };

/** A folder store that counts the blobs read. */
class CountingStore implements BlobStore {
  gets: string[] = [];
  constructor(readonly inner: FileBlobStore) {}
  put(bytes: Uint8Array) {
    return this.inner.put(bytes);
  }
  get(key: string) {
    this.gets.push(key);
    return this.inner.get(key);
  }
}

/** A closed turn of two entries (input, answer) at seq `seq`, `seq + 1`. */
function turn(seq: number, question: string, answer: string): HistoryEntry[] {
  const timestamp = new Date(Date.UTC(2026, 0, 1, 0, 0, seq)).toISOString();
  return [
    { kind: 'model_input', seq, timestamp, sections: [{ title: 'Input', content: question }], inputSeq: (seq + 1) / 2 },
    {
      kind: 'model_output',
      seq: seq + 1,
      timestamp,
      contents: [answer],
      toolCalls: [],
      invocation: { providerId: 'scripted', specification: 'scripted', model: 'm' },
    },
  ];
}

/** Turns from seq `from`, `turns` of them, as one segment's content. */
function segmentContent(from: number, turns: number, say = (i: number) => `Routine check number ${i}.`): SegmentContent {
  const entries: HistoryEntry[] = [];
  for (let i = 0; i < turns; i++) entries.push(...turn(from + 2 * i, say(from + 2 * i), `Noted item ${from + 2 * i}.`));
  return { before, entries };
}

/** An index whose segments are `refs`, folding into manifests as the agent does once the inline list is full. */
async function indexOf(archive: ArchiveStore, refs: SegmentRef[]): Promise<ArchiveIndex> {
  let index: ArchiveIndex = emptyArchive();
  for (const ref of refs) {
    index = { ...index, throughSeq: ref.toSeq, entries: index.entries + ref.entries, bytes: index.bytes + ref.bytes, segments: [...index.segments, ref] };
    const fold = foldable(index);
    if (fold.length) index = archiveAfterFold(index, fold, await archive.writeManifest(fold, index.manifest?.key));
  }
  return index;
}

describe('segments', () => {
  test('round trip: the ref describes the entries, and reading gives them back', async () => {
    const archive = new ArchiveStore({ store: new FileBlobStore(tempDir()) });
    const content = segmentContent(1, 5);
    const ref = await archive.writeSegment(content);
    expect(ref).toMatchObject({ fromSeq: 1, toSeq: 10, entries: 10, bytes: content.entries.reduce((n, e) => n + entryBytes(e), 0) });
    expect(ref.tokens).toBe(Math.ceil(Buffer.byteLength(JSON.stringify(content.entries)) / 4));
    expect(ref.key).toMatch(/^[0-9a-f]{64}$/);
    expect(ref.indexKey).toMatch(/^[0-9a-f]{64}$/);
    // A fresh store (no cache) reads it from the folder.
    const fresh = new ArchiveStore({ store: new FileBlobStore((archive.store as FileBlobStore).dir) });
    await expect(fresh.readSegment(ref)).resolves.toEqual(content);
  });

  test('the same content gives the same hash whatever the order of its keys', async () => {
    const archive = new ArchiveStore({ store: new FileBlobStore(tempDir()) });
    const content = segmentContent(1, 3);
    const reordered: SegmentContent = {
      entries: content.entries.map((e) => Object.fromEntries(Object.entries(e).reverse()) as HistoryEntry),
      before: { widgets: before.widgets, systemInstruction: before.systemInstruction },
    };
    const a = await archive.writeSegment(content);
    const b = await archive.writeSegment(reordered);
    expect(b.hash).toBe(a.hash);
    expect(b.key).toBe(a.key); // unencrypted bytes are deterministic: stored once
    const other = await archive.writeSegment(segmentContent(1, 3, (i) => `Another text ${i}.`));
    expect(other.hash).not.toBe(a.hash);
  });

  test('encrypted blobs hold no plaintext and read back; without the key they fail, saying what to set', async () => {
    const dir = tempDir();
    const encryption = keys();
    const archive = new ArchiveStore({ store: new FileBlobStore(dir), encryption });
    const content = segmentContent(1, 2, () => 'The vault combination is PLAINTEXTMARKER.');
    const ref = await archive.writeSegment(content);
    const again = await archive.writeSegment(content);
    expect(again.hash).toBe(ref.hash); // the hash is of the content, the key of the ciphertext
    expect(again.key).not.toBe(ref.key);
    for (const sub of readdirSync(dir)) {
      for (const file of readdirSync(path.join(dir, sub))) {
        const bytes = readFileSync(path.join(dir, sub, file));
        expect(bytes.includes('PLAINTEXTMARKER')).toBe(false);
        expect(bytes.includes('plaintextmarker')).toBe(false); // nor in the term index
      }
    }
    await expect(new ArchiveStore({ store: new FileBlobStore(dir), encryption }).readSegment(ref)).resolves.toEqual(content);
    await expect(new ArchiveStore({ store: new FileBlobStore(dir) }).readSegment(ref)).rejects.toThrow(
      /seq 1–4 .* is encrypted and this process has no codec keys\. Set LIVECONTEXT_CODEC_KEYS/,
    );
    await expect(new ArchiveStore({ store: new FileBlobStore(dir), encryption: keys() }).readSegment(ref)).rejects.toThrow(
      /cannot be decrypted with this process's codec keys/,
    );
  });

  test('a missing blob and a corrupt one fail clearly, naming the segment and the store', async () => {
    const dir = tempDir();
    const archive = new ArchiveStore({ store: new FileBlobStore(dir) });
    const ref = await archive.writeSegment(segmentContent(1, 2));
    const reader = () => new ArchiveStore({ store: new FileBlobStore(dir) });

    const missing = { ...ref, key: 'f'.repeat(64) };
    await expect(reader().readSegment(missing)).rejects.toThrow(ArchiveReadError);
    await expect(reader().readSegment(missing)).rejects.toThrow(
      new RegExp(`Archive segment seq 1–4 \\(blob f{64}\\) cannot be read from the blob store ${dir}: .*missing.*LIVECONTEXT_BLOB_DIR`),
    );

    // Bytes that are not what their key says: the store refuses them.
    writeFileSync(path.join(dir, ref.key.slice(0, 2), ref.key), 'garbage');
    await expect(reader().readSegment(ref)).rejects.toThrow(/corrupt/);

    // A blob that is intact as stored but is not the segment the ref names.
    const other = await archive.writeSegment(segmentContent(101, 2));
    await expect(reader().readSegment({ ...other, hash: ref.hash })).rejects.toThrow(/is corrupt: its content does not match its hash/);
  });
});

test('fromEnv: the folder, keys and cache size the environment names; a bad cache size is refused', async () => {
  const dir = tempDir();
  const spec = `k1:${randomBytes(32).toString('base64')}`;
  const written = await ArchiveStore.fromEnv({ LIVECONTEXT_BLOB_DIR: dir, LIVECONTEXT_CODEC_KEYS: spec }).writeSegment(segmentContent(1, 1));
  expect(readdirSync(dir)).toContain(written.key.slice(0, 2));
  const reader = ArchiveStore.fromEnv({ LIVECONTEXT_BLOB_DIR: dir, LIVECONTEXT_CODEC_KEYS: spec, LIVECONTEXT_ARCHIVE_CACHE_MB: '1' });
  await expect(reader.readSegment(written)).resolves.toEqual(segmentContent(1, 1));
  expect(() => ArchiveStore.fromEnv({ LIVECONTEXT_BLOB_DIR: dir, LIVECONTEXT_ARCHIVE_CACHE_MB: 'lots' })).toThrow(
    'LIVECONTEXT_ARCHIVE_CACHE_MB must be a number of MiB (got "lots").',
  );
});

describe('manifests and reading ranges', () => {
  async function manySegments(count: number, turnsEach = 2, say?: (i: number) => string) {
    const folder = new FileBlobStore(tempDir());
    const writer = new ArchiveStore({ store: folder });
    const refs: SegmentRef[] = [];
    for (let i = 0; i < count; i++) refs.push(await writer.writeSegment(segmentContent(1 + i * 2 * turnsEach, turnsEach, say)));
    const index = await indexOf(writer, refs);
    const counting = new CountingStore(folder);
    return { refs, index, counting, reader: new ArchiveStore({ store: counting }) };
  }

  test('a chain of several manifests gives every reference, oldest first', async () => {
    const { refs, index, reader } = await manySegments(70);
    expect(index.manifest?.segments).toBe(48); // three manifests of 16
    expect(index.segments).toHaveLength(22);
    const all = await reader.allSegments(index);
    expect(all.map((r) => r.hash)).toEqual(refs.map((r) => r.hash));
    await expect(reader.allSegments({ ...index, manifest: { ...index.manifest!, segments: 47 } })).rejects.toThrow(
      /lists .* segments where the agent.s index counts 47/,
    );
  });

  test('entries pages across segment boundaries, reading only the segments it needs', async () => {
    const { refs, index, reader, counting } = await manySegments(40); // 4 entries per segment, seq 1–160
    // A page inside the inline segments: no manifest is read, only the two segments it spans.
    const recent = await reader.entries(index, { afterSeq: 150, limit: 6 });
    expect(recent.map((e) => e.seq)).toEqual([151, 152, 153, 154, 155, 156]);
    expect(counting.gets).toEqual([refs[37].key, refs[38].key]);

    // From the start: the manifest chain, then segments 0–2 only.
    counting.gets = [];
    const first = await reader.entries(index, { afterSeq: 0, limit: 10 });
    expect(first.map((e) => e.seq)).toEqual([1, 2, 3, 4, 5, 6, 7, 8, 9, 10]);
    expect(counting.gets.filter((k) => refs.some((r) => r.key === k))).toEqual([refs[0].key, refs[1].key, refs[2].key]);

    // Paging on through every archived entry gives each once, in order.
    const seen: number[] = [];
    for (let after = 0; ;) {
      const page = await reader.entries(index, { afterSeq: after, limit: 7 });
      if (!page.length) break;
      seen.push(...page.map((e) => e.seq));
      after = page[page.length - 1].seq;
    }
    expect(seen).toEqual(Array.from({ length: 160 }, (_, i) => i + 1));
    const bounded = await reader.entries(index, { afterSeq: 10, uptoSeq: 13 });
    expect(bounded.map((e) => e.seq)).toEqual([11, 12, 13]);
  });

  test('search finds a word from the oldest of many segments and reads only the segments that match', async () => {
    const say = (seq: number) => (seq === 3 ? 'Remember: my locker code is 4711, zebra.' : `Routine check number ${seq}.`);
    const { refs, index, reader, counting } = await manySegments(40, 2, say);
    const matches = await reader.search(index, 'What was the LOCKER code?');
    expect(matches).toEqual([{ seq: 3, kind: 'model_input', timestamp: expect.any(String), text: 'Remember: my locker code is 4711, zebra.' }]);
    const segmentReads = counting.gets.filter((k) => refs.some((r) => r.key === k));
    expect(segmentReads).toEqual([refs[0].key]);
    // Every term index was read, and every one was read once (then cached).
    const indexReads = counting.gets.filter((k) => refs.some((r) => r.indexKey === k));
    expect(new Set(indexReads).size).toBe(40);
    counting.gets = [];
    await reader.search(index, 'zebra');
    expect(counting.gets).toEqual([]);
  });

  test('search ranks by words matched, then newest; takes extra entries; matches word beginnings', async () => {
    const { index, reader } = await manySegments(3, 2, (seq) => (seq === 1 ? 'deployment to staging failed' : seq === 9 ? 'staging is green' : `idle ${seq}`));
    const extra = turn(13, 'staging deployment again', 'ok');
    const matches = await reader.search(index, 'deploy staging', { extra });
    expect(matches.map((m) => m.seq)).toEqual([13, 1, 9]);
    expect(await reader.search(index, 'deploy staging', { extra, limit: 1 })).toHaveLength(1);
    expect(await reader.search(index, 'the a of')).toEqual([]);
    // What a rewind into the archive took out is not found (ArchiveIndex.rewound).
    expect((await reader.search({ ...index, rewound: [[2, 9]] }, 'deploy staging', { extra })).map((m) => m.seq)).toEqual([13, 1]);
  });

  test('a long entry is shown around its first match', async () => {
    const long = `${'filler words here. '.repeat(200)}The answer is PELICAN. ${'more filler. '.repeat(200)}`;
    const { index, reader } = await manySegments(1, 2, (seq) => (seq === 1 ? long : 'short'));
    const [match] = await reader.search(index, 'pelican');
    expect(match.text).toContain('The answer is PELICAN.');
    expect(match.text.length).toBeLessThanOrEqual(1002);
    expect(match.text.startsWith('…')).toBe(true);
    expect(match.text.endsWith('…')).toBe(true);
  });
});
