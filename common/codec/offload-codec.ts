/**
 * Payloads above a threshold are stored in a BlobStore and replaced by a small reference, so no
 * payload ever comes near Temporal's limits (2 MB per payload, 4 MB per message) and history stays
 * small: large tool output, large input, large carried state at continue-as-new.
 */
import type { Payload, PayloadCodec } from '@temporalio/common';
import { temporal } from '@temporalio/proto';
import type { BlobStore } from './blob-store';

export const BLOB_REF_ENCODING = 'livecontext/blob-ref';
/** Far below 2 MB, so a workflow task with several of them still fits in a 4 MB message. */
export const DEFAULT_OFFLOAD_THRESHOLD = 128 * 1024;

const enc = new TextEncoder();
const dec = new TextDecoder();

export class OffloadCodec implements PayloadCodec {
  constructor(
    private readonly store: BlobStore,
    private readonly thresholdBytes = DEFAULT_OFFLOAD_THRESHOLD,
  ) {}

  async encode(payloads: Payload[]): Promise<Payload[]> {
    return Promise.all(
      payloads.map(async (p) => {
        if (surelyAtMost(p, this.thresholdBytes)) return p; // nearly every payload: no encoding just to weigh it
        const bytes = temporal.api.common.v1.Payload.encode(p).finish();
        if (bytes.length <= this.thresholdBytes) return p;
        const key = await this.store.put(bytes);
        return { metadata: { encoding: enc.encode(BLOB_REF_ENCODING) }, data: enc.encode(JSON.stringify({ key, size: bytes.length })) };
      }),
    );
  }

  async decode(payloads: Payload[]): Promise<Payload[]> {
    return Promise.all(
      payloads.map(async (p) => {
        if (!p.metadata?.encoding || dec.decode(p.metadata.encoding) !== BLOB_REF_ENCODING) return p;
        const { key } = JSON.parse(dec.decode(p.data ?? new Uint8Array())) as { key: string };
        return temporal.api.common.v1.Payload.decode(await this.store.get(key));
      }),
    );
  }
}

/**
 * Whether `p`'s encoding is surely at most `limit` bytes, from an upper bound on it: per metadata entry its
 * tags and length prefixes (at most 18 bytes), the key (at most 3 UTF-8 bytes per UTF-16 unit) and the
 * value; then the data's tag, length prefix and bytes. A payload with any other field set is weighed by encoding.
 */
function surelyAtMost(p: Payload, limit: number): boolean {
  for (const [key, value] of Object.entries(p)) {
    if (key !== 'metadata' && key !== 'data' && value != null && !(Array.isArray(value) && value.length === 0)) return false;
  }
  let bound = 6 + (p.data?.length ?? 0);
  for (const key in p.metadata ?? {}) bound += 18 + 3 * key.length + (p.metadata![key]?.length ?? 0);
  return bound <= limit;
}
