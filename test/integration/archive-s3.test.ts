/**
 * The archive on a real S3-compatible server (MinIO, as in s3-blob-store.test.ts): a segment, its term
 * index and a manifest go into the bucket encrypted and content-addressed, a fresh store reads and
 * searches them back, and a missing object fails naming the bucket. Skipped, saying why, without MinIO.
 */
import { createHash, randomBytes } from 'node:crypto';
import { DeleteObjectCommand, GetObjectCommand, ListObjectsV2Command } from '@aws-sdk/client-s3';
import type { HistoryEntry } from '../../agent/index';
import { archiveAfterSeal, emptyArchive } from '../../agent/archive';
import { ArchiveStore } from '../../common/archive/index';
import { blobStoreFromEnv } from '../../common/codec/blob-store-from-env';
import { parseKeys } from '../../common/codec/encryption-codec';
import { S3BlobStore } from '../../common/codec/s3-blob-store';
import { s3ServerPath, startS3Server, type S3TestServer } from '../support/s3-server';

const exe = s3ServerPath();
if (!exe) console.warn('Archive on S3 test SKIPPED: no MinIO server (scripts/ensure-s3-server.cjs found none and could not build one).');
const describeS3 = exe ? describe : describe.skip;

describeS3('archive segments in an S3 bucket', () => {
  jest.setTimeout(120_000);
  let s3: S3TestServer;
  const stores: S3BlobStore[] = [];
  beforeAll(async () => {
    s3 = await startS3Server(exe!);
  });
  afterAll(async () => {
    for (const store of stores) await store.close();
    await s3?.stop();
  });

  /** The store the environment names, with the server's credentials given explicitly (jest shares one environment between files). */
  const bucketStore = () => {
    const fromEnv = blobStoreFromEnv(s3.env()) as S3BlobStore;
    const store = new S3BlobStore({ ...fromEnv.options, credentials: { accessKeyId: s3.accessKeyId, secretAccessKey: s3.secretAccessKey } });
    stores.push(store);
    return store;
  };

  test('round trip: encrypted, content-addressed objects that a fresh store reads and searches', async () => {
    const encryption = parseKeys(`k1:${randomBytes(32).toString('base64')}`);
    const timestamp = '2026-01-01T00:00:00.000Z';
    const entries: HistoryEntry[] = [
      { kind: 'model_input', seq: 1, timestamp, sections: [{ title: 'Input', content: 'The heron nests by the MARKERPOND.' }] },
      { kind: 'model_output', seq: 2, timestamp, contents: ['Noted.'], toolCalls: [], invocation: { providerId: 's', specification: 's', model: 'm' } },
    ];
    const writer = new ArchiveStore({ store: bucketStore(), encryption });
    const ref = await writer.writeSegment({ before: { systemInstruction: '', widgets: {} }, entries });
    const manifest = await writer.writeManifest([ref]);

    const names = ((await s3.client.send(new ListObjectsV2Command({ Bucket: s3.bucket, Prefix: 'livecontext/blobs/' }))).Contents ?? []).map((o) => o.Key!);
    expect(names.sort()).toEqual([ref.key, ref.indexKey!, manifest].map((k) => `livecontext/blobs/${k}`).sort());
    for (const name of names) {
      const bytes = Buffer.from(await (await s3.client.send(new GetObjectCommand({ Bucket: s3.bucket, Key: name }))).Body!.transformToByteArray());
      expect(name).toBe(`livecontext/blobs/${createHash('sha256').update(bytes).digest('hex')}`);
      expect(bytes.includes('MARKERPOND')).toBe(false);
      expect(bytes.includes('markerpond')).toBe(false);
    }

    const reader = new ArchiveStore({ store: bucketStore(), encryption });
    await expect(reader.readSegment(ref)).resolves.toEqual({ before: { systemInstruction: '', widgets: {} }, entries });
    const index = archiveAfterSeal(emptyArchive(), entries, ref, 0);
    await expect(reader.search(index, 'heron markerpond')).resolves.toMatchObject([{ seq: 1, text: 'The heron nests by the MARKERPOND.' }]);

    await s3.client.send(new DeleteObjectCommand({ Bucket: s3.bucket, Key: `livecontext/blobs/${ref.key}` }));
    await expect(new ArchiveStore({ store: bucketStore(), encryption }).readSegment(ref)).rejects.toThrow(
      /Archive segment seq 1–2 \(blob [0-9a-f]{64}\) cannot be read from the blob store s3:\/\/livecontext-test\/livecontext\/blobs\/ at http/,
    );
  });
});
