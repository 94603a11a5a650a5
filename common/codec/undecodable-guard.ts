/**
 * A worker must never be stalled by a payload it cannot decode. Temporal decodes a workflow task's
 * payloads before the workflow sees them, and one that fails — an unknown encoding, `binary/encrypted`
 * without the key, a blob reference to a missing blob, bytes that are not JSON in a payload no codec wrote — fails the whole task
 * on every retry. A signal stays in history, so that agent would never answer again.
 *
 * On workers, the codec chain is wrapped so that each payload is decoded on its own and one that
 * cannot be is replaced by a small JSON marker naming why. The workflow then decides what the marker
 * means: a signal or update carrying one is refused like any malformed input; an activity result or a
 * carried state carrying one fails the workflow task (InfrastructureError), which Temporal retries,
 * perhaps on a worker that has the key — the agent's own data is never dropped.
 */
import type { DataConverter, Payload, PayloadCodec } from '@temporalio/common';
import { UNDECODABLE_KEY } from '../../agent/index';

const enc = new TextEncoder();
const dec = new TextDecoder();
/** What the SDK's default payload converter reads; anything else would fail inside the workflow. */
const KNOWN_ENCODINGS = new Set(['binary/null', 'binary/plain', 'json/plain']);

/** The data converter a worker (or a replayer) uses: `dataConverter` with its codecs guarded. */
export function guardedForWorkers(dataConverter: DataConverter): DataConverter {
  return { ...dataConverter, payloadCodecs: [new UndecodableGuardCodec(dataConverter.payloadCodecs ?? [])] };
}

export class UndecodableGuardCodec implements PayloadCodec {
  constructor(private readonly codecs: readonly PayloadCodec[]) {}

  async encode(payloads: Payload[], context?: Parameters<PayloadCodec['encode']>[1]): Promise<Payload[]> {
    for (const codec of this.codecs) payloads = await codec.encode(payloads, context);
    return payloads;
  }

  async decode(payloads: Payload[], context?: Parameters<PayloadCodec['decode']>[1]): Promise<Payload[]> {
    return Promise.all(
      payloads.map(async (payload) => {
        try {
          let decoded = [payload];
          for (let i = this.codecs.length - 1; i >= 0; i--) decoded = await this.codecs[i].decode(decoded, context);
          // What a codec gave back (decrypted, authenticated; or fetched by its content hash) was encoded by a
          // payload converter behind the same codecs: its JSON need not be parsed here as well as in the
          // workflow — for a carried state, the largest payload a worker reads, that doubled the parse.
          const problem = unreadable(decoded[0], decoded[0] === payload);
          return problem ? marker(problem) : decoded[0];
        } catch (err) {
          return marker((err as Error)?.message ?? String(err));
        }
      }),
    );
  }
}

/** Why the default payload converter would fail on this payload, or undefined if it reads it; `checkJson` false takes JSON as JSON. */
function unreadable(payload: Payload | undefined, checkJson: boolean): string | undefined {
  const raw = payload?.metadata?.encoding;
  if (!raw) return 'the payload has no encoding';
  const encoding = dec.decode(raw);
  if (!KNOWN_ENCODINGS.has(encoding)) return `unknown encoding "${encoding.slice(0, 100)}"`;
  if (encoding !== 'json/plain' || !checkJson) return undefined;
  try {
    JSON.parse(dec.decode(payload.data ?? new Uint8Array()));
    return undefined;
  } catch (err) {
    return `not JSON: ${(err as Error).message}`;
  }
}

function marker(reason: string): Payload {
  return {
    metadata: { encoding: enc.encode('json/plain') },
    data: enc.encode(JSON.stringify({ [UNDECODABLE_KEY]: reason.slice(0, 500) })),
  };
}
