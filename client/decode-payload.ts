/** Payloads read outside Temporal's own paths (an activity's heartbeat details), decoded through public API. */
import type { LoadedDataConverter, Payload } from '@temporalio/common';

/** The value at `index`, after the converter's codecs (decrypt, fetch offloaded) ran in reverse order. */
export async function decodePayloadAt<T>(converter: LoadedDataConverter, index: number, payloads: Payload[]): Promise<T> {
  let decoded = payloads;
  for (const codec of [...converter.payloadCodecs].reverse()) decoded = await codec.decode(decoded);
  return converter.payloadConverter.fromPayload<T>(decoded[index]);
}
