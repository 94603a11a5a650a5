/**
 * The callModel activity's result from the assembled message: what the workflow records (contents, tool
 * calls, thinking, usage with its cost), the tool catalog when it changed, and metadata for readers.
 * A result Temporal would refuse for its size is refused here, saying why.
 */
import { ApplicationFailure } from '@temporalio/common';
import {
  type AssembledMessage,
  type JsonValue,
  MAX_INLINE_PAYLOAD_BYTES,
  METADATA_MAX_BYTES,
  type Metadata,
  type ModelCallResult,
  type ModelContext,
  REQUEST_FINGERPRINT_KEY,
  type RequestFingerprint,
  type ToolSpec,
  utf8Length,
} from '../../agent/index';
import { type PriceTable, costOf } from '../models/prices';
import { ModelError } from '../models/provider-errors';
import { catalogChange } from '../tool-catalog';
import type { ToolRegistry } from '../tools/registry';
import type { CallModelInput } from '../types';

export interface CallResultParts {
  input: CallModelInput;
  context: ModelContext;
  toolSpecs: ToolSpec[];
  invocation: ModelCallResult['invocation'];
  /** The activity attempt and id that produced the message. */
  call: { attempt: number; activityId: string };
  typedMetadata: Metadata | undefined;
  usageRepairs: string[];
  /** What was sent (see request-fingerprint.ts). */
  fingerprint?: RequestFingerprint;
  tools: ToolRegistry;
  prices: PriceTable | undefined;
  /** False when the worker does not offload large payloads. */
  offloading: boolean | undefined;
}

export function callResult(message: AssembledMessage, parts: CallResultParts): ModelCallResult {
  const { input, context, toolSpecs, call, usageRepairs } = parts;
  // Names the model made up: their calls fail at once, while a tool that was offered but is missing on
  // the worker that runs it is handed to another worker (see tools/missing-tool.ts).
  // Named exactly in the agent's allowance (not by a pattern): expected to exist on some worker.
  const offered = new Set([...toolSpecs.map((s) => s.name), ...(input.tools ?? []).filter((n) => !n.endsWith('*'))]);
  const unoffered = [...new Set(message.toolCalls.map((c) => c.toolName).filter((n) => !offered.has(n)))];
  const result: ModelCallResult = {
    contents: message.contents,
    toolCalls: message.toolCalls,
    invocation: parts.invocation,
    metadata: {
      estimated_input_tokens: context.estimatedInputTokens,
      // Which call and attempt produced this output, so a stream that showed its text as it formed knows
      // whether the text continues what it showed (the workflow does not read these).
      attempts: call.attempt,
      call_id: call.activityId,
      ...(context.dropped ? { context_dropped: context.dropped } : {}),
      ...(unoffered.length ? { unoffered_tools: unoffered.map((n) => n.slice(0, 64)).slice(0, 10) } : {}),
      ...parts.typedMetadata,
      ...(usageRepairs.length ? { usage_repaired: usageRepairs.join('; ').slice(0, 300) } : {}),
    },
  };
  const fingerprint = parts.fingerprint && withinMetadata(result.metadata!, parts.fingerprint);
  if (fingerprint) result.metadata![REQUEST_FINGERPRINT_KEY] = fingerprint as unknown as JsonValue;
  const catalog = catalogChange(parts.tools, input.tools, input.catalogDigest);
  if (catalog) result.toolCatalog = catalog;
  if (message.thinking) result.thinking = message.thinking;
  if (message.thinkingSignature) result.thinkingSignature = message.thinkingSignature;
  if (message.usage) {
    // Into history as seed 000's TokenUsage: the stream's totalTokens is derivable, so left out.
    const { totalTokens: _total, ...usage } = message.usage;
    const costUsd = costOf(parts.prices, input.model, usage);
    result.usage = costUsd === undefined ? usage : { ...usage, costUsd };
  }
  const bytes = parts.offloading === false ? utf8Length(JSON.stringify(result)) : 0;
  if (bytes > MAX_INLINE_PAYLOAD_BYTES) {
    // Temporal would refuse the result anyway; say why, once (retrying cannot make it smaller).
    throw ApplicationFailure.create({
      type: ModelError.OutputTooLarge,
      nonRetryable: true,
      message: `The answer of ${input.model} is ${(bytes / 1024 / 1024).toFixed(1)} MB, over Temporal's 2 MB payload limit, and this worker does not offload large payloads (LIVECONTEXT_OFFLOAD=0). Turn offloading on, or lower maxTokens.`,
    });
  }
  return result;
}

/**
 * The fingerprint as it fits in the entry's metadata (2 KB, shared with what the workflow adds, such as
 * fallback_from): without its params when they crowd it, left out when even that is too much — a call
 * without a fingerprint is inspected with a warning, a call refused for its metadata would block the agent.
 */
const FINGERPRINT_ROOM = METADATA_MAX_BYTES - 512;

function withinMetadata(metadata: Metadata, fingerprint: RequestFingerprint): RequestFingerprint | undefined {
  const size = (f: RequestFingerprint) => utf8Length(JSON.stringify({ ...metadata, [REQUEST_FINGERPRINT_KEY]: f }));
  if (size(fingerprint) <= FINGERPRINT_ROOM) return fingerprint;
  const { params: _params, ...lean } = fingerprint;
  return size(lean) <= FINGERPRINT_ROOM ? lean : undefined;
}
