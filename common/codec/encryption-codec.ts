/**
 * AES-256-GCM encryption of every payload, with the key id in the payload's metadata so keys can be
 * rotated: the current key encrypts, every configured key decrypts. The Temporal server (and its
 * database) only ever sees ciphertext.
 *
 * Keys: LIVECONTEXT_CODEC_KEYS="k2:<base64 32 bytes>,k1:<base64 32 bytes>" — the first is current.
 */
import { createCipheriv, createDecipheriv, randomBytes } from 'node:crypto';
import type { Payload, PayloadCodec } from '@temporalio/common';
import { temporal } from '@temporalio/proto';

export const ENCRYPTED_ENCODING = 'binary/encrypted';
export const KEY_ID_METADATA = 'encryption-key-id';

const enc = new TextEncoder();
const dec = new TextDecoder();

export interface EncryptionKeys {
  /** Key id → 32-byte key. */
  keys: Record<string, Uint8Array>;
  /** The id that encrypts. */
  currentKeyId: string;
}

export function parseKeys(spec: string): EncryptionKeys {
  const entries = spec
    .split(',')
    .map((s) => s.trim())
    .filter(Boolean)
    .map((pair) => {
      const at = pair.indexOf(':');
      if (at <= 0) throw new Error('LIVECONTEXT_CODEC_KEYS is "id:base64key,id:base64key" (first one encrypts).');
      const key = Buffer.from(pair.slice(at + 1), 'base64');
      if (key.length !== 32) throw new Error(`Key "${pair.slice(0, at)}" must be 32 bytes (base64 of 32 random bytes).`);
      return [pair.slice(0, at), new Uint8Array(key)] as const;
    });
  if (!entries.length) throw new Error('LIVECONTEXT_CODEC_KEYS holds no key.');
  return { keys: Object.fromEntries(entries), currentKeyId: entries[0][0] };
}

export class EncryptionCodec implements PayloadCodec {
  constructor(private readonly config: EncryptionKeys) {
    if (!config.keys[config.currentKeyId]) throw new Error(`No key "${config.currentKeyId}".`);
  }

  async encode(payloads: Payload[]): Promise<Payload[]> {
    const key = this.config.keys[this.config.currentKeyId];
    return payloads.map((p) => {
      const iv = randomBytes(12);
      const cipher = createCipheriv('aes-256-gcm', key, iv);
      const plain = temporal.api.common.v1.Payload.encode(p).finish();
      const data = Buffer.concat([iv, cipher.update(plain), cipher.final(), cipher.getAuthTag()]);
      return {
        metadata: { encoding: enc.encode(ENCRYPTED_ENCODING), [KEY_ID_METADATA]: enc.encode(this.config.currentKeyId) },
        data: new Uint8Array(data),
      };
    });
  }

  async decode(payloads: Payload[]): Promise<Payload[]> {
    return payloads.map((p) => {
      if (!p.metadata?.encoding || dec.decode(p.metadata.encoding) !== ENCRYPTED_ENCODING) return p;
      const keyId = p.metadata[KEY_ID_METADATA] ? dec.decode(p.metadata[KEY_ID_METADATA]) : '';
      const key = this.config.keys[keyId];
      if (!key) throw new Error(`Payload encrypted with key "${keyId}", which this process does not have.`);
      const data = Buffer.from(p.data ?? new Uint8Array());
      const decipher = createDecipheriv('aes-256-gcm', key, data.subarray(0, 12));
      decipher.setAuthTag(data.subarray(data.length - 16));
      const plain = Buffer.concat([decipher.update(data.subarray(12, data.length - 16)), decipher.final()]);
      return temporal.api.common.v1.Payload.decode(plain);
    });
  }
}
