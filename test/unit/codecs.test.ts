/**
 * The payload codecs every worker and client use, on real files and real AES-GCM: encryption round trips
 * and key rotation, offloading to the blob store, and the two together in the order the data converter
 * chains them.
 */
import { randomBytes } from 'node:crypto';
import { existsSync, mkdtempSync, readFileSync, readdirSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { type Payload, type PayloadCodec, defaultPayloadConverter } from '@temporalio/common';
import { temporal } from '@temporalio/proto';
import { FileBlobStore, defaultBlobDir } from '../../common/codec/blob-store';
import { codecOptionsFromEnv, livecontextDataConverter, payloadCodecs } from '../../common/codec/data-converter';
import { ENCRYPTED_ENCODING, EncryptionCodec, KEY_ID_METADATA, parseKeys } from '../../common/codec/encryption-codec';
import { BLOB_REF_ENCODING, DEFAULT_OFFLOAD_THRESHOLD, OffloadCodec } from '../../common/codec/offload-codec';

const key = () => randomBytes(32).toString('base64');
const payload = (value: unknown): Payload => defaultPayloadConverter.toPayload(value)!;
const utf8 = (s: string) => new TextEncoder().encode(s);
const valueOf = (p: Payload) => defaultPayloadConverter.fromPayload(p);
const text = (bytes: Uint8Array | null | undefined) => Buffer.from(bytes ?? new Uint8Array()).toString('utf8');
const tempDir = (name: string) => mkdtempSync(path.join(tmpdir(), `lc-${name}-`));

/** As Temporal applies a converter's codecs: in order to encode, in reverse to decode. */
async function encodeAll(codecs: PayloadCodec[], payloads: Payload[]) {
  for (const c of codecs) payloads = await c.encode(payloads);
  return payloads;
}
async function decodeAll(codecs: PayloadCodec[], payloads: Payload[]) {
  for (const c of [...codecs].reverse()) payloads = await c.decode(payloads);
  return payloads;
}

describe('encryption', () => {
  const secret = { text: 'the quarterly numbers are in', n: 42 };

  test('round trip: only ciphertext and the key id leave the process; every encoding has its own IV', async () => {
    const codec = new EncryptionCodec(parseKeys(`k1:${key()}`));
    const [a] = await codec.encode([payload(secret)]);
    const [b] = await codec.encode([payload(secret)]);
    expect(text(a.metadata!.encoding)).toBe(ENCRYPTED_ENCODING);
    expect(text(a.metadata![KEY_ID_METADATA])).toBe('k1');
    expect(text(a.data)).not.toContain('quarterly');
    expect(Buffer.from(a.data!).equals(Buffer.from(b.data!))).toBe(false);
    const [back] = await codec.decode([a]);
    expect(valueOf(back)).toEqual(secret);
    expect(text(back.metadata!.encoding)).toBe('json/plain'); // the whole original payload, metadata too
  });

  test('key rotation: the first key encrypts, every listed key decrypts; a dropped key is named', async () => {
    const k1 = key();
    const k2 = key();
    const [old] = await new EncryptionCodec(parseKeys(`k1:${k1}`)).encode([payload(secret)]);
    const rotated = new EncryptionCodec(parseKeys(`k2:${k2}, k1:${k1}`));
    expect(valueOf((await rotated.decode([old]))[0])).toEqual(secret);
    const [fresh] = await rotated.encode([payload(secret)]);
    expect(text(fresh.metadata![KEY_ID_METADATA])).toBe('k2');
    const withoutK1 = new EncryptionCodec(parseKeys(`k2:${k2}`));
    expect(valueOf((await withoutK1.decode([fresh]))[0])).toEqual(secret);
    await expect(withoutK1.decode([old])).rejects.toThrow('Payload encrypted with key "k1", which this process does not have.');
  });

  test('changed ciphertext is refused, never decoded into something else', async () => {
    const codec = new EncryptionCodec(parseKeys(`k1:${key()}`));
    const [sealed] = await codec.encode([payload(secret)]);
    const data = Buffer.from(sealed.data!);
    data[20] ^= 1;
    await expect(codec.decode([{ ...sealed, data: new Uint8Array(data) }])).rejects.toThrow();
  });

  test('payloads that are not encrypted pass through decode unchanged', async () => {
    const plain = payload('hello');
    expect(await new EncryptionCodec(parseKeys(`k1:${key()}`)).decode([plain])).toEqual([plain]);
  });

  test('LIVECONTEXT_CODEC_KEYS mistakes are explained', () => {
    expect(() => parseKeys('')).toThrow('LIVECONTEXT_CODEC_KEYS holds no key.');
    expect(() => parseKeys(key())).toThrow(/is "id:base64key,id:base64key" \(first one encrypts\)/);
    expect(() => parseKeys(`short:${Buffer.alloc(16).toString('base64')}`)).toThrow('Key "short" must be 32 bytes (base64 of 32 random bytes).');
    expect(parseKeys(` a:${key()} ,b:${key()}`).currentKeyId).toBe('a');
    expect(() => new EncryptionCodec({ keys: {}, currentKeyId: 'x' })).toThrow('No key "x".');
  });
});

describe('offloading to the blob store', () => {
  test('the same bytes put many times at once are stored once, and every put succeeds', async () => {
    const store = new FileBlobStore(tempDir('blobs'));
    const bytes = randomBytes(4096);
    const keys = await Promise.all(Array.from({ length: 20 }, () => store.put(bytes)));
    expect(new Set(keys).size).toBe(1);
    expect(Buffer.from(await store.get(keys[0])).equals(bytes)).toBe(true);
    expect(readdirSync(path.join(store.dir, keys[0].slice(0, 2)))).toEqual([keys[0]]); // no temporary file left
  });

  test('a payload over the threshold is stored by content hash and replaced by a small reference', async () => {
    const store = new FileBlobStore(tempDir('blobs'));
    const codec = new OffloadCodec(store, 1024);
    const small = payload('x'.repeat(100));
    const large = payload('y'.repeat(5000));
    const [keptSmall, ref] = await codec.encode([small, large]);
    expect(keptSmall).toBe(small);
    expect(text(ref.metadata!.encoding)).toBe(BLOB_REF_ENCODING);
    const { key: blobKey, size } = JSON.parse(text(ref.data));
    expect(blobKey).toMatch(/^[0-9a-f]{64}$/);
    expect(size).toBeGreaterThan(5000);
    expect(ref.data!.length).toBeLessThan(200);
    expect(existsSync(path.join(store.dir, blobKey.slice(0, 2), blobKey))).toBe(true);
    const [a, b] = await codec.decode([keptSmall, ref]);
    expect(valueOf(a)).toBe('x'.repeat(100));
    expect(valueOf(b)).toBe('y'.repeat(5000));
  });

  test('the same payload twice is one blob; the default threshold keeps ordinary payloads inline', async () => {
    const store = new FileBlobStore(tempDir('blobs'));
    const codec = new OffloadCodec(store, 10);
    const [r1] = await codec.encode([payload('same text here')]);
    const [r2] = await codec.encode([payload('same text here')]);
    expect(r1).toEqual(r2);
    expect(readdirSync(store.dir)).toHaveLength(1);
    const ordinary = payload('a'.repeat(DEFAULT_OFFLOAD_THRESHOLD / 2));
    expect(await new OffloadCodec(store).encode([ordinary])).toEqual([ordinary]);
  });

  test('a payload is offloaded exactly when its encoding is over the threshold, also near it (where the size is not only bounded)', async () => {
    const store = new FileBlobStore(tempDir('blobs'));
    const threshold = 300;
    const codec = new OffloadCodec(store, threshold);
    let kept = 0;
    let offloaded = 0;
    for (let n = 200; n < 320; n++) {
      for (const p of [
        payload('é'.repeat(n / 2) + 'z'.repeat(n % 2)),
        { ...payload('x'.repeat(n)), metadata: { encoding: utf8('json/plain'), 'encoding-extra': utf8('ü'.repeat(n % 7)) } },
      ]) {
        const encoded = temporal.api.common.v1.Payload.encode(p).finish().length;
        const [out] = await codec.encode([p]);
        expect({ n, encoded, offloaded: out !== p }).toEqual({ n, encoded, offloaded: encoded > threshold });
        if (out === p) kept++;
        else offloaded++;
      }
    }
    expect(kept).toBeGreaterThan(10);
    expect(offloaded).toBeGreaterThan(10);
  });

  test('a missing, corrupt or malformed blob reference is an error that says what to fix', async () => {
    const store = new FileBlobStore(tempDir('blobs'));
    const codec = new OffloadCodec(store, 10);
    const [ref] = await codec.encode([payload('z'.repeat(100))]);
    const { key: blobKey } = JSON.parse(text(ref.data));
    const elsewhere = new OffloadCodec(new FileBlobStore(tempDir('other-blobs')), 10);
    await expect(elsewhere.decode([ref])).rejects.toThrow(/is missing from .*every worker and client must share the blob store/);
    writeFileSync(path.join(store.dir, blobKey.slice(0, 2), blobKey), 'tampered');
    await expect(codec.decode([ref])).rejects.toThrow(`Offloaded payload ${blobKey} is corrupt.`);
    const forged = { ...ref, data: new TextEncoder().encode(JSON.stringify({ key: '../../etc/passwd' })) };
    await expect(codec.decode([forged])).rejects.toThrow('Not a blob key: ../../etc/passwd');
  });

  test('a blob store that cannot be written fails before anything is sent, naming LIVECONTEXT_BLOB_DIR', async () => {
    const codec = new OffloadCodec(new FileBlobStore('/dev/null/blobs'), 10);
    await expect(codec.encode([payload('w'.repeat(100))])).rejects.toThrow(
      /Cannot store a large payload in the blob store \/dev\/null\/blobs .*set LIVECONTEXT_BLOB_DIR/,
    );
  });

  test('the default blob folder: LIVECONTEXT_BLOB_DIR, else XDG_DATA_HOME, else ~/.local/share — never the current folder', () => {
    expect(defaultBlobDir({ LIVECONTEXT_BLOB_DIR: 'rel/blobs' })).toBe(path.resolve('rel/blobs'));
    expect(defaultBlobDir({ XDG_DATA_HOME: '/data' })).toBe('/data/livecontext/blobs');
    expect(defaultBlobDir({})).toMatch(/\/\.local\/share\/livecontext\/blobs$/);
  });
});

describe('the data converter', () => {
  test('encryption comes first, so an offloaded blob holds ciphertext; the chain decodes back', async () => {
    const store = new FileBlobStore(tempDir('blobs'));
    const codecs = payloadCodecs({ encryption: parseKeys(`k1:${key()}`), offload: { store, thresholdBytes: 1024 } });
    const value = { note: 'confidential '.repeat(500) };
    const [ref] = await encodeAll(codecs, [payload(value)]);
    expect(text(ref.metadata!.encoding)).toBe(BLOB_REF_ENCODING);
    const { key: blobKey } = JSON.parse(text(ref.data));
    expect(readFileSync(path.join(store.dir, blobKey.slice(0, 2), blobKey)).toString('latin1')).not.toContain('confidential');
    expect(valueOf((await decodeAll(codecs, [ref]))[0])).toEqual(value);
  });

  test('options from the environment: keys, offloading on by default, off with LIVECONTEXT_OFFLOAD=0, a threshold', () => {
    expect(codecOptionsFromEnv({})).toEqual({ offload: { thresholdBytes: DEFAULT_OFFLOAD_THRESHOLD } });
    expect(codecOptionsFromEnv({ LIVECONTEXT_OFFLOAD: '0' })).toEqual({ offload: false });
    expect(codecOptionsFromEnv({ LIVECONTEXT_OFFLOAD_THRESHOLD: '2048' })).toEqual({ offload: { thresholdBytes: 2048 } });
    const k = key();
    expect(codecOptionsFromEnv({ LIVECONTEXT_CODEC_KEYS: `k7:${k}` }).encryption).toEqual({
      currentKeyId: 'k7',
      keys: { k7: new Uint8Array(Buffer.from(k, 'base64')) },
    });
    expect(livecontextDataConverter({ offload: false }).payloadCodecs).toEqual([]);
    expect(payloadCodecs({ encryption: parseKeys(`k1:${k}`), offload: false }).map((c) => c.constructor.name)).toEqual(['EncryptionCodec']);
  });
});
