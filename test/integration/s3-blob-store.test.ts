/**
 * The S3 blob store against a real S3-compatible server (MinIO, built by scripts/ensure-s3-server.cjs):
 * a large input and a large answer go through an agent whose worker is another process configured only
 * by environment, both offloaded to the bucket encrypted; objects are named by the sha256 of their
 * bytes; a missing object, wrong credentials and an unreachable endpoint give clear errors and lose
 * nothing. Skipped, saying why, when no MinIO could be found or built.
 */
import { createHash, randomBytes } from 'node:crypto';
import { mkdtemp, readdir, rm } from 'node:fs/promises';
import os from 'node:os';
import path from 'node:path';
import { DeleteObjectCommand, GetObjectCommand, ListObjectsV2Command, PutObjectCommand } from '@aws-sdk/client-s3';
import { Client } from '@temporalio/client';
import type { Payload } from '@temporalio/common';
import { AgentClient } from '../../client/agent-client';
import { blobStoreFromEnv } from '../../common/codec/blob-store-from-env';
import { livecontextDataConverter, payloadCodecs } from '../../common/codec/data-converter';
import { BLOB_REF_ENCODING } from '../../common/codec/offload-codec';
import { parseKeys } from '../../common/codec/encryption-codec';
import { S3BlobStore } from '../../common/codec/s3-blob-store';
import { startChildWorker, type ChildWorker } from '../support/child-worker';
import { s3ServerPath, startS3Server, type S3TestServer } from '../support/s3-server';
import { connectTest, type TestContext, uniqueId } from '../support/temporal';

/** Every payload in `value` (history events) that is a reference to an offloaded blob. */
function blobRefs(value: unknown, found: Payload[] = []): Payload[] {
  if (!value || typeof value !== 'object' || ArrayBuffer.isView(value)) return found;
  const p = value as Payload;
  if (p.metadata?.encoding && Buffer.from(p.metadata.encoding).toString() === BLOB_REF_ENCODING) found.push(p);
  else for (const child of Object.values(value)) blobRefs(child, found);
  return found;
}

const exe = s3ServerPath();
if (!exe)
  console.warn(
    'S3 blob store test SKIPPED: no MinIO server (scripts/ensure-s3-server.cjs found none and could not build one; npm test builds it when Go is present).',
  );
const describeS3 = exe ? describe : describe.skip;

describeS3('S3 blob store on a real MinIO', () => {
  jest.setTimeout(120_000);
  let s3: S3TestServer;
  let t: TestContext;
  let worker: ChildWorker;
  let blobDir: string;
  let tmp: string;
  const taskQueue = uniqueId('s3');
  const codecKeys = `k1:${randomBytes(32).toString('base64')}`;
  const marker = 'PLAINTEXT-MARKER-';

  /**
   * The test's own store: chosen from the same environment as the worker's, with the credentials given
   * explicitly (this jest process shares its environment with other test files, so no AWS_* here).
   */
  const withCredentials = (store: S3BlobStore) =>
    new S3BlobStore({ ...store.options, credentials: { accessKeyId: s3.accessKeyId, secretAccessKey: s3.secretAccessKey } });
  const agentsOn = (store: S3BlobStore) =>
    new AgentClient(
      new Client({ connection: t.connection, dataConverter: livecontextDataConverter({ encryption: parseKeys(codecKeys), offload: { store } }) }),
      taskQueue,
    );

  /** The worker in its own process, configured only by environment: the bucket, AWS_* credentials, the keys. */
  const startWorker = () =>
    startChildWorker({
      taskQueue,
      workspaceRoot: tmp,
      controlDir: tmp,
      // No workflow cache: every task replays, so the worker reads the blobs history refers to.
      extraEnv: { ...s3.env(), LIVECONTEXT_CODEC_KEYS: codecKeys, LIVECONTEXT_BLOB_DIR: blobDir, TEST_WORKER_NO_CACHE: '1' },
    });

  beforeAll(async () => {
    s3 = await startS3Server(exe!);
    t = await connectTest(taskQueue);
    tmp = await mkdtemp(path.join(os.tmpdir(), 'lc-s3-'));
    blobDir = path.join(tmp, 'blobs'); // the worker's folder store, which must stay unused
    worker = await startWorker();
  });
  afterAll(async () => {
    await worker?.kill('SIGTERM');
    await t?.close();
    await s3?.stop();
    if (tmp) await rm(tmp, { recursive: true, force: true });
  });

  const listKeys = async () => {
    const out = await s3.client.send(new ListObjectsV2Command({ Bucket: s3.bucket, Prefix: 'livecontext/blobs/' }));
    return (out.Contents ?? []).map((o) => o.Key!);
  };
  const objectBytes = async (name: string) => (await s3.client.send(new GetObjectCommand({ Bucket: s3.bucket, Key: name }))).Body!.transformToByteArray();

  test('a large input and answer round-trip through the bucket, encrypted and content-addressed', async () => {
    const store = withCredentials(blobStoreFromEnv(s3.env()) as S3BlobStore);
    const agents2 = agentsOn(store);
    const agentId = uniqueId('s3-agent');
    const input = `${marker}${'abcdefgh'.repeat(25_000)}`; // 200 KB: over the 128 KB offload threshold, under the 256 KB input limit
    await agents2.start(agentId, { model: 'scripted:echo' });
    const outcome = await agents2.ask(agentId, input);
    expect(outcome).toMatchObject({ status: 'answered' });
    if (outcome.status === 'answered') expect(outcome.answer.contents[0]).toBe(`echo: ${input}`);

    // History holds references only; the bytes are in the bucket, not in the worker's folder.
    const events = (await agents2.handle(agentId).fetchHistory()).events ?? [];
    expect(Math.max(...events.map((e) => JSON.stringify(e).length))).toBeLessThan(64 * 1024);
    await expect(readdir(blobDir)).rejects.toThrow(/ENOENT/);
    const names = await listKeys();
    expect(names.length).toBeGreaterThanOrEqual(2); // the client's input and the worker's answer at least
    for (const name of names) {
      const bytes = await objectBytes(name);
      expect(name).toBe(`livecontext/blobs/${createHash('sha256').update(bytes).digest('hex')}`);
      expect(Buffer.from(bytes).includes(marker)).toBe(false); // ciphertext, not the plaintext
      expect(Buffer.from(bytes).includes('abcdefghabcdefgh')).toBe(false);
    }
    // A later reader (another client, same environment) reads the whole history back from the bucket.
    const history = await agents2.history(agentId);
    expect(history.map((e) => e.kind)).toEqual(['model_input', 'model_output']);
    expect(JSON.stringify(history)).toContain(marker);

    // Objects gone from the bucket: the references in history fail to decode, clearly, naming the key;
    // put back, the same references decode to the plaintext again (nothing in history was lost).
    const refs = blobRefs(events);
    expect(refs.length).toBeGreaterThanOrEqual(2);
    const codecs = payloadCodecs({ encryption: parseKeys(codecKeys), offload: { store } });
    const decodeAll = async () => {
      const out: Payload[] = [];
      for (let p of refs) {
        for (const codec of [...codecs].reverse()) [p] = await codec.decode([p]);
        out.push(p);
      }
      return out;
    };
    const saved = await Promise.all(names.map(async (name) => ({ name, bytes: await objectBytes(name) })));
    for (const { name } of saved) await s3.client.send(new DeleteObjectCommand({ Bucket: s3.bucket, Key: name }));
    await expect(decodeAll()).rejects.toThrow(/Offloaded payload [0-9a-f]{64} is missing from s3:\/\/livecontext-test\/livecontext\/blobs\/ at http/);
    for (const { name, bytes } of saved) await s3.client.send(new PutObjectCommand({ Bucket: s3.bucket, Key: name, Body: bytes }));
    const decoded = await decodeAll();
    expect(decoded.some((p) => Buffer.from(p.data ?? []).includes(marker))).toBe(true);
    await store.close();
  });

  test('a missing object is a clear error naming the key and the bucket', async () => {
    const store = withCredentials(blobStoreFromEnv(s3.env()) as S3BlobStore);
    const key = await store.put(new TextEncoder().encode('to be deleted'));
    expect(new TextDecoder().decode(await store.get(key))).toBe('to be deleted');
    await s3.client.send(new DeleteObjectCommand({ Bucket: s3.bucket, Key: store.objectName(key) }));
    await expect(store.get(key)).rejects.toThrow(new RegExp(`Offloaded payload ${key} is missing from s3://${s3.bucket}/livecontext/blobs/ at ${s3.endpoint}`));
    await store.close();
  });

  test('wrong credentials: the ask is refused before it is sent, clearly, without the secret; nothing is lost', async () => {
    const good = withCredentials(blobStoreFromEnv(s3.env()) as S3BlobStore);
    const goodAgents = agentsOn(good);
    const agentId = uniqueId('s3-creds');
    await goodAgents.start(agentId, { model: 'scripted:echo' });
    expect(await goodAgents.ask(agentId, 'small first')).toMatchObject({ status: 'answered' });

    const wrongSecret = `wrong-${randomBytes(12).toString('hex')}`;
    const bad = new S3BlobStore({ ...good.options, credentials: { accessKeyId: s3.accessKeyId, secretAccessKey: wrongSecret } });
    const badAgents = agentsOn(bad);
    const err: Error = await badAgents.ask(agentId, `large ${'x'.repeat(200_000)}`).then(
      () => {
        throw new Error('ask succeeded with wrong credentials');
      },
      (e: Error) => e,
    );
    expect(String(err.message) + String((err as { cause?: Error }).cause?.message ?? '')).toMatch(
      /Cannot store a large payload in the blob store s3:\/\/.*access refused.*check the AWS credentials/s,
    );
    expect(JSON.stringify({ m: err.message, s: err.stack, c: String((err as { cause?: unknown }).cause) })).not.toContain(wrongSecret);

    // Nothing was sent: the agent has its first turn only, and a good client carries on.
    expect((await goodAgents.history(agentId)).map((e) => e.kind)).toEqual(['model_input', 'model_output']);
    const big = `large ${'y'.repeat(200_000)}`;
    expect(await goodAgents.ask(agentId, big)).toMatchObject({ status: 'answered', answer: { contents: [`echo: ${big}`] } });
    await good.close();
    await bad.close();
  });

  test('an unreachable endpoint says so', async () => {
    const store = blobStoreFromEnv({ ...s3.env(), LIVECONTEXT_BLOB_S3_ENDPOINT: 'http://127.0.0.1:9' }) as S3BlobStore;
    const withCreds = new S3BlobStore({ ...store.options, credentials: { accessKeyId: 'x', secretAccessKey: 'y' } });
    await expect(withCreds.put(new Uint8Array([1, 2, 3]))).rejects.toThrow(
      /blob store s3:\/\/livecontext-test\/livecontext\/blobs\/ at http:\/\/127\.0\.0\.1:9: the object store is unreachable \(ECONNREFUSED\)/,
    );
    await withCreds.close();
  });
});
