/**
 * What a model call was sent, in a few hundred bytes: recorded on its `model_output` entry as
 * `metadata.request` (activities/model-call/request-fingerprint.ts builds it), so a reader can render the
 * call again from history and check that it gets the same request (`livecontext inspect --call`).
 * Never the request itself, never a header or a key: hashes, seq numbers, counts and the few settings
 * the rendering needs.
 */
import type { JsonValue } from './entries';
import type { ModelParams } from './agent-config';

/** The metadata key of the fingerprint on a model_output entry. */
export const REQUEST_FINGERPRINT_KEY = 'request';

export interface RequestFingerprint {
  /** Version of this shape. */
  v: 1;
  /** SHA-256 (hex) of the request body as the provider's SDK sent it; absent for models without a wire request (scripted, demo). */
  sha256?: string;
  /** The body's length in bytes (UTF-8). */
  bytes?: number;
  /** How the body was rendered: `openai-chat-completions` or `anthropic-messages`. */
  rendering?: string;
  /** The model as the agent named it (`provider:model`). */
  model: string;
  /** The call's history bound: entries with seq ≤ upto_seq. */
  upto_seq: number;
  /** The oldest and newest entry seq among the messages sent (after trimming). */
  first_seq?: number;
  last_seq?: number;
  /** The first entry the call read (the working set's or an archived segment's first); rendering starts there. */
  known_from?: number;
  /** Archived segments read for the call. */
  segments?: number;
  /** The agent's context window (when it set one) and the input budget the context was fitted to. */
  window?: number;
  budget?: number;
  /** Context messages left out to fit the budget. */
  dropped?: number;
  /** The compaction whose summary stood for the older entries. */
  compaction_seq?: number;
  /** Policy `compact`: the context was not trimmed. */
  compact?: true;
  /** The tokenizer's estimate of the input. */
  tokens: number;
  /** Attachments left out because a provider refused them earlier. */
  refused?: number;
  /** The archive's tools (`recall`, `expand`) were offered. */
  archive_tools?: true;
  /** Tools offered, and the cache TTL asked for (Anthropic). */
  tools?: number;
  cache_ttl?: string;
  /** The model parameters of the call, when they are small (else only their hash in `parts.rest`). */
  params?: ModelParams;
  /** Short hashes of the body's parts, so a mismatch can say which part differs. */
  parts?: { messages?: string; system?: string; tools?: string; rest?: string };
}

/** The fingerprint on a model_output entry's metadata, if it has one of a known version. */
export function fingerprintOf(metadata: Record<string, JsonValue> | undefined): RequestFingerprint | undefined {
  const value = metadata?.[REQUEST_FINGERPRINT_KEY] as unknown;
  if (!value || typeof value !== 'object' || Array.isArray(value)) return undefined;
  const f = value as Partial<RequestFingerprint>;
  return f.v === 1 && typeof f.model === 'string' && typeof f.upto_seq === 'number' ? (f as RequestFingerprint) : undefined;
}

const PART_CHANGES: Record<string, string> = {
  messages: 'the messages differ',
  system: 'the system prompt differs',
  tools: 'the tools differ',
  rest: 'the model parameters differ',
};

/**
 * What differs between a recorded fingerprint and the one of a new rendering of the same call, in words
 * (empty when they match). The body's parts say where; the counts say why when they can.
 */
export function fingerprintDifferences(recorded: RequestFingerprint, rendered: RequestFingerprint): string[] {
  if (recorded.sha256 !== undefined && recorded.sha256 === rendered.sha256) return [];
  const out: string[] = [];
  if (recorded.sha256 === undefined) out.push('the call was recorded without a request hash (a model without a wire request)');
  if (recorded.rendering !== rendered.rendering) out.push(`the rendering was ${recorded.rendering ?? 'none'}, now ${rendered.rendering ?? 'none'}`);
  if (recorded.tools !== rendered.tools) out.push(`${recorded.tools ?? 0} tool(s) were offered, now ${rendered.tools ?? 0}`);
  if (recorded.first_seq !== rendered.first_seq || recorded.last_seq !== rendered.last_seq) {
    out.push(`the messages covered seq ${recorded.first_seq ?? '?'}–${recorded.last_seq ?? '?'}, now ${rendered.first_seq ?? '?'}–${rendered.last_seq ?? '?'}`);
  }
  if ((recorded.dropped ?? 0) !== (rendered.dropped ?? 0)) out.push(`${recorded.dropped ?? 0} message(s) were trimmed, now ${rendered.dropped ?? 0}`);
  for (const [part, change] of Object.entries(PART_CHANGES)) {
    const a = recorded.parts?.[part as keyof NonNullable<RequestFingerprint['parts']>];
    const b = rendered.parts?.[part as keyof NonNullable<RequestFingerprint['parts']>];
    if (a !== undefined && a !== b) out.push(change);
  }
  if (!out.length) out.push('the request body differs');
  return out;
}
