/**
 * How archive blobs (segments, their term indexes, manifests) are stored: JSON, gzip-compressed, in a
 * Temporal Payload that the EncryptionCodec encrypts when codec keys are set — the same codec and key
 * ids as every other payload, so LIVECONTEXT_CODEC_KEYS rotation works the same way — then serialized
 * to bytes for the blob store. Without keys the bytes are deterministic, so the same content is stored once.
 */
import { gunzipSync, gzipSync } from 'node:zlib';
import type { Payload } from '@temporalio/common';
import { temporal } from '@temporalio/proto';
import { ENCRYPTED_ENCODING, type EncryptionCodec } from '../codec/encryption-codec';

/** The encoding of a plain (not yet encrypted) archive blob's payload. */
export const ARCHIVE_BLOB_ENCODING = 'livecontext/archive-json+gzip';

const enc = new TextEncoder();
const dec = new TextDecoder();

/** Why a blob could not be opened; the store says which blob and what to set. */
export class ArchiveBlobError extends Error {
  constructor(
    message: string,
    readonly reason: 'encrypted-no-keys' | 'undecryptable' | 'corrupt',
  ) {
    super(message);
    this.name = new.target.name;
  }
}

export async function sealBlob(json: string, encryption?: EncryptionCodec): Promise<Uint8Array> {
  let payload: Payload = { metadata: { encoding: enc.encode(ARCHIVE_BLOB_ENCODING) }, data: gzipSync(enc.encode(json)) };
  if (encryption) [payload] = await encryption.encode([payload]);
  return temporal.api.common.v1.Payload.encode(payload).finish();
}

export async function openBlob(bytes: Uint8Array, encryption?: EncryptionCodec): Promise<string> {
  let payload: Payload;
  try {
    payload = temporal.api.common.v1.Payload.decode(bytes);
  } catch (err) {
    throw new ArchiveBlobError(`not an archive blob (${(err as Error).message})`, 'corrupt');
  }
  if (encodingOf(payload) === ENCRYPTED_ENCODING) {
    if (!encryption) throw new ArchiveBlobError('it is encrypted and this process has no codec keys', 'encrypted-no-keys');
    try {
      [payload] = await encryption.decode([payload]);
    } catch (err) {
      throw new ArchiveBlobError(`it cannot be decrypted with this process's codec keys (${(err as Error).message})`, 'undecryptable');
    }
  }
  if (encodingOf(payload) !== ARCHIVE_BLOB_ENCODING) throw new ArchiveBlobError(`not an archive blob (encoding "${encodingOf(payload)}")`, 'corrupt');
  try {
    return dec.decode(gunzipSync(payload.data ?? new Uint8Array()));
  } catch (err) {
    throw new ArchiveBlobError(`its compressed data is damaged (${(err as Error).message})`, 'corrupt');
  }
}

function encodingOf(payload: Payload): string {
  const e = payload.metadata?.encoding;
  return e ? dec.decode(e) : '';
}
