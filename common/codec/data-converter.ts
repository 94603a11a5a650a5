/**
 * The data converter every livecontext worker and client uses: encryption when keys are configured
 * (LIVECONTEXT_CODEC_KEYS), then offloading of large payloads (on by default; LIVECONTEXT_OFFLOAD=0 to
 * turn off, LIVECONTEXT_OFFLOAD_THRESHOLD in bytes) into the folder store, or an S3 bucket when
 * LIVECONTEXT_BLOB_S3_BUCKET is set (blob-store-from-env.ts). Workers and clients must agree on it.
 */
import type { DataConverter, PayloadCodec } from '@temporalio/common';
import type { BlobStore } from './blob-store';
import { blobStoreFromEnv } from './blob-store-from-env';
import { EncryptionCodec, type EncryptionKeys, parseKeys } from './encryption-codec';
import { DEFAULT_OFFLOAD_THRESHOLD, OffloadCodec } from './offload-codec';

export interface CodecOptions {
  encryption?: EncryptionKeys;
  /** false turns offloading off. */
  offload?: false | { store?: BlobStore; thresholdBytes?: number };
}

export function codecOptionsFromEnv(env: NodeJS.ProcessEnv = process.env): CodecOptions {
  return {
    ...(env.LIVECONTEXT_CODEC_KEYS ? { encryption: parseKeys(env.LIVECONTEXT_CODEC_KEYS) } : {}),
    offload:
      env.LIVECONTEXT_OFFLOAD === '0'
        ? false
        : { thresholdBytes: env.LIVECONTEXT_OFFLOAD_THRESHOLD ? Number(env.LIVECONTEXT_OFFLOAD_THRESHOLD) : DEFAULT_OFFLOAD_THRESHOLD },
  };
}

export function payloadCodecs(options: CodecOptions = codecOptionsFromEnv()): PayloadCodec[] {
  const codecs: PayloadCodec[] = [];
  // Encrypt first, so offloaded blobs hold ciphertext too.
  if (options.encryption) codecs.push(new EncryptionCodec(options.encryption));
  if (options.offload !== false) codecs.push(new OffloadCodec(options.offload?.store ?? blobStoreFromEnv(), options.offload?.thresholdBytes));
  return codecs;
}

export function livecontextDataConverter(options?: CodecOptions): DataConverter {
  return { payloadCodecs: payloadCodecs(options) };
}
