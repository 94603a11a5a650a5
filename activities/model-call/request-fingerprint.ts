/**
 * The fingerprint of what a model call sent (see agent/request-fingerprint.ts): the SHA-256 of the body
 * as the SDK serialises it (`JSON.stringify`, as both official SDKs send a JSON body), short hashes of
 * its parts, and how the context was made — the entry range, the budget, trimming, the archive read.
 * Built by the model call and again by `inspect`, from the same inputs, so the two can be compared.
 */
import { createHash } from 'node:crypto';
import { type HistoryEntry, type ModelContext, type ModelRequest, type RequestFingerprint, lastCompaction, unwrap } from '../../agent/index';
import type { CallModelInput } from '../types';

/** Model parameters longer than this (as JSON) are left out of the fingerprint; their hash is in `parts.rest`. */
export const MAX_FINGERPRINT_PARAMS_BYTES = 256;

export interface FingerprintParts {
  input: CallModelInput;
  context: ModelContext;
  /** The entries the context was rendered from, and the archived segments among them. */
  known: readonly HistoryEntry[];
  segments: number;
  /** The input budget the context was fitted to, when the model has one. */
  budget: number | undefined;
  archiveTools: boolean;
  tools: number;
  /** The provider request, when the model has one (see Model.request). */
  request: ModelRequest | undefined;
}

export function sha256(text: string): string {
  return createHash('sha256').update(text).digest('hex');
}

const short = (value: unknown) => (value === undefined ? undefined : sha256(JSON.stringify(value)).slice(0, 12));

/** The body's text as sent: the SDKs send `JSON.stringify(body)`. */
export function bodyText(request: ModelRequest): string {
  return JSON.stringify(request.body);
}

export function requestFingerprint(p: FingerprintParts): RequestFingerprint {
  const { input, context } = p;
  const seqs = context.messages.flatMap((m) => {
    const inner = unwrap(m);
    return 'seq' in inner ? [inner.seq] : [];
  });
  const compaction = lastCompaction(p.known, input.uptoSeq);
  const params = input.params && JSON.stringify(input.params).length <= MAX_FINGERPRINT_PARAMS_BYTES ? input.params : undefined;
  return {
    v: 1,
    ...(p.request ? wireParts(p.request) : {}),
    model: input.model,
    upto_seq: input.uptoSeq,
    ...(seqs.length ? { first_seq: Math.min(...seqs), last_seq: Math.max(...seqs) } : {}),
    ...(p.known.length ? { known_from: p.known[0].seq } : {}),
    ...(p.segments ? { segments: p.segments } : {}),
    ...(input.contextWindow ? { window: input.contextWindow } : {}),
    ...(p.budget !== undefined ? { budget: p.budget } : {}),
    ...(context.dropped ? { dropped: context.dropped } : {}),
    ...(compaction ? { compaction_seq: compaction.seq } : {}),
    ...(input.compactAt !== undefined ? { compact: true as const } : {}),
    tokens: context.estimatedInputTokens,
    ...(input.refusedAttachments?.length ? { refused: input.refusedAttachments.length } : {}),
    ...(p.archiveTools ? { archive_tools: true as const } : {}),
    ...(p.tools ? { tools: p.tools } : {}),
    ...(input.cacheTtl ? { cache_ttl: input.cacheTtl } : {}),
    ...(params ? { params } : {}),
  };
}

function wireParts(request: ModelRequest): Pick<RequestFingerprint, 'sha256' | 'bytes' | 'rendering' | 'parts'> {
  const text = bodyText(request);
  const { messages, system, tools, ...rest } = request.body;
  const parts = { messages: short(messages), system: short(system), tools: short(tools), rest: short(rest) };
  return {
    sha256: sha256(text),
    bytes: Buffer.byteLength(text),
    rendering: request.rendering,
    parts: Object.fromEntries(Object.entries(parts).filter(([, v]) => v !== undefined)),
  };
}
