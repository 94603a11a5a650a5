/**
 * A worker is never stalled by a payload it cannot decode: each payload is decoded on its own, and one
 * that cannot be becomes a small JSON marker naming why, which the workflow reads with undecodableReason.
 * Also the codec server the Web UI uses, over real HTTP.
 */
import { randomBytes } from 'node:crypto';
import { mkdtempSync } from 'node:fs';
import type { AddressInfo } from 'node:net';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { type Payload, defaultPayloadConverter } from '@temporalio/common';
import { undecodableReason } from '../../agent/index';
import { FileBlobStore } from '../../common/codec/blob-store';
import { startCodecServer } from '../../common/codec/codec-server';
import { payloadCodecs } from '../../common/codec/data-converter';
import { EncryptionCodec, parseKeys } from '../../common/codec/encryption-codec';
import { OffloadCodec } from '../../common/codec/offload-codec';
import { UndecodableGuardCodec, guardedForWorkers } from '../../common/codec/undecodable-guard';

const enc = new TextEncoder();
const key = () => randomBytes(32).toString('base64');
const payload = (value: unknown): Payload => defaultPayloadConverter.toPayload(value)!;
const reason = (p: Payload) => undecodableReason(defaultPayloadConverter.fromPayload(p));
const raw = (encoding: string | undefined, data: string): Payload => ({
  metadata: encoding === undefined ? {} : { encoding: enc.encode(encoding) },
  data: enc.encode(data),
});

test('payloads that decode pass through the guarded chain as they were', async () => {
  const store = new FileBlobStore(mkdtempSync(path.join(tmpdir(), 'lc-blobs-')));
  const codecs = payloadCodecs({ encryption: parseKeys(`k1:${key()}`), offload: { store, thresholdBytes: 64 } });
  const guard = new UndecodableGuardCodec(codecs);
  const values = ['small', { big: 'b'.repeat(1000) }, null];
  const encoded = await guard.encode(values.map(payload));
  const decoded = await guard.decode(encoded);
  expect(decoded.map((p) => defaultPayloadConverter.fromPayload(p))).toEqual(values);
  expect(decoded.map(reason)).toEqual([undefined, undefined, undefined]);
});

test('each payload is decoded on its own: one that cannot be becomes a marker, the others are kept', async () => {
  const mine = new EncryptionCodec(parseKeys(`k1:${key()}`));
  const [foreign] = await new EncryptionCodec(parseKeys(`k9:${key()}`)).encode([payload('not for us')]);
  const [offloadedElsewhere] = await new OffloadCodec(new FileBlobStore(mkdtempSync(path.join(tmpdir(), 'lc-other-'))), 1).encode([payload('far away')]);
  const guard = new UndecodableGuardCodec([mine, new OffloadCodec(new FileBlobStore(mkdtempSync(path.join(tmpdir(), 'lc-blobs-'))), 1)]);
  const out = await guard.decode([
    payload('fine'),
    foreign,
    offloadedElsewhere,
    raw('json/protobuf', '{}'),
    raw(undefined, '{}'),
    raw('json/plain', '{"cut off'),
    raw('binary/plain', 'anything'),
  ]);
  expect(defaultPayloadConverter.fromPayload(out[0])).toBe('fine');
  expect(reason(out[1])).toBe('Payload encrypted with key "k9", which this process does not have.');
  expect(reason(out[2])).toMatch(/is missing from .*share the blob store/);
  expect(reason(out[3])).toBe('unknown encoding "json/protobuf"');
  expect(reason(out[4])).toBe('the payload has no encoding');
  expect(reason(out[5])).toMatch(/^not JSON: /);
  expect(reason(out[6])).toBeUndefined(); // binary/plain is read by the default converter
  // Every marker is itself a payload the default converter reads.
  for (const p of out) expect(() => defaultPayloadConverter.fromPayload(p)).not.toThrow();
});

test("what a codec gives back is checked for its encoding, its JSON taken as its encoder's converter wrote it", async () => {
  const store = new FileBlobStore(mkdtempSync(path.join(tmpdir(), 'lc-blobs-')));
  const guard = new UndecodableGuardCodec([new OffloadCodec(store, 1)]);
  const [unknown] = await new OffloadCodec(store, 1).encode([raw('json/protobuf', '{}')]);
  const [fine] = await new OffloadCodec(store, 1).encode([payload({ state: 'x'.repeat(100) })]);
  const out = await guard.decode([unknown, fine]);
  expect(reason(out[0])).toBe('unknown encoding "json/protobuf"');
  expect(defaultPayloadConverter.fromPayload(out[1])).toEqual({ state: 'x'.repeat(100) });
});

test('a marker keeps its reason short, whatever the error said', async () => {
  const long = raw(`x/${'e'.repeat(5000)}`, '{}');
  const [marker] = await new UndecodableGuardCodec([]).decode([long]);
  expect(reason(marker)!.length).toBeLessThanOrEqual(500);
  expect(marker.data!.length).toBeLessThan(700);
});

test('guardedForWorkers keeps the converter and puts its codecs behind the guard', async () => {
  const codec = new EncryptionCodec(parseKeys(`k1:${key()}`));
  const converter = guardedForWorkers({ payloadCodecs: [codec], payloadConverterPath: '/somewhere' });
  expect(converter.payloadConverterPath).toBe('/somewhere');
  expect(converter.payloadCodecs).toHaveLength(1);
  const guard = converter.payloadCodecs![0];
  const [sealed] = await guard.encode([payload('through the guard')]);
  expect(Buffer.from(sealed.data!).toString()).not.toContain('through the guard'); // encode still encrypts
  expect(defaultPayloadConverter.fromPayload((await guard.decode([sealed]))[0])).toBe('through the guard');
});

describe('codec server', () => {
  test('encodes and decodes in the remote codec protocol; refuses other routes and bad bodies', async () => {
    const server = await startCodecServer({ codecs: payloadCodecs({ encryption: parseKeys(`k1:${key()}`), offload: false }), port: 0 });
    try {
      const url = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
      const post = (route: string, body: string) => fetch(`${url}${route}`, { method: 'POST', body, headers: { 'Content-Type': 'application/json' } });
      const plain = { metadata: { encoding: Buffer.from('json/plain').toString('base64') }, data: Buffer.from('"hi"').toString('base64') };
      const encoded = await post('/encode', JSON.stringify({ payloads: [plain] }));
      expect(encoded.status).toBe(200);
      const { payloads: sealed } = (await encoded.json()) as { payloads: Array<{ metadata: Record<string, string>; data: string }> };
      expect(Buffer.from(sealed[0].metadata.encoding, 'base64').toString()).toBe('binary/encrypted');
      const decoded = await post('/decode', JSON.stringify({ payloads: sealed }));
      expect(await decoded.json()).toEqual({ payloads: [plain] });
      expect((await post('/other', '{}')).status).toBe(404);
      const bad = await post('/decode', 'not json');
      expect(bad.status).toBe(400);
      expect(await bad.json()).toEqual({ message: expect.any(String) });
      expect((await fetch(`${url}/decode`, { method: 'OPTIONS' })).headers.get('access-control-allow-origin')).toBe('http://localhost:8233');
    } finally {
      await new Promise((r) => server.close(r));
    }
  });
});
