/**
 * An input too large to pass inline, refused by the client that would send it. Temporal takes a payload
 * of at most 2 MB, and an update whose payload is over it does not merely fail: the server ends the
 * agent. Images make such inputs possible; a client that offloads large payloads (the default) sends a
 * small reference instead, and passes this check.
 */
import type { LoadedDataConverter } from '@temporalio/common';
import { type AgentInput, InputRejectedError, MAX_INLINE_PAYLOAD_BYTES, utf8Length } from '../agent/index';

export async function refuseOversizedInline(converter: LoadedDataConverter, input: AgentInput): Promise<void> {
  if (utf8Length(JSON.stringify(input)) <= MAX_INLINE_PAYLOAD_BYTES) return; // far below: nothing to encode
  let payloads = [converter.payloadConverter.toPayload(input)];
  for (const codec of converter.payloadCodecs) payloads = await codec.encode(payloads); // as the client will send it
  const [p] = payloads;
  const bytes = (p.data?.length ?? 0) + Object.values(p.metadata ?? {}).reduce((n, v) => n + (v?.length ?? 0), 0);
  if (bytes <= MAX_INLINE_PAYLOAD_BYTES) return;
  throw new InputRejectedError(
    'INPUT_TOO_LARGE',
    `The input is ${(bytes / 1024 / 1024).toFixed(1)} MB as sent, over Temporal's 2 MB payload limit, and this client does not offload large payloads (LIVECONTEXT_OFFLOAD=0); Temporal would end the agent. Turn offloading on, or send smaller images or image URLs.`,
  );
}
