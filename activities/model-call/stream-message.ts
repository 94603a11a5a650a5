/**
 * One stream from the model to its complete message, through a MessageAssembler: cancellation and the
 * liveness watchdog abort it, its partial output goes where readers look (stream-progress.ts), and every
 * failure becomes the Temporal failure to throw. A stream that ends without `done`, or with neither text
 * nor tool calls, is an error (retried), never a message. Each stream runs in a GenAI span of its own.
 */
import { Context } from '@temporalio/activity';
import { ApplicationFailure } from '@temporalio/common';
import {
  type AssembledMessage,
  type ContextMessage,
  MessageAssembler,
  type MessageDelta,
  type Model,
  type StreamOptions,
  type ToolSpec,
  type WireResponseFormat,
} from '../../agent/index';
import type { ModelLiveness, ModelStreamObserver } from '../call-model';
import { type PriceTable, costOf } from '../models/prices';
import { ModelError, mapProviderError, toApplicationFailure } from '../models/provider-errors';
import { repairStreamUsage } from '../models/usage-repair';
import type { StreamChannel } from '../stream-channel/stream-server';
import { recordModelCall } from '../telemetry/activity-metrics';
import { type ModelSpan, startModelSpan } from '../telemetry/model-span';
import type { CallModelInput } from '../types';
import { StreamProgress } from './stream-progress';
import { StreamWatchdog } from './stream-watchdog';

/** What every stream of one model call shares. */
export interface ModelStreamCall {
  ctx: Context;
  input: CallModelInput;
  model: Model;
  toolSpecs: ToolSpec[];
  system: string | undefined;
  /** The typed answer's format, when the turn wants one. */
  wire: WireResponseFormat | undefined;
  observe: ((delta: MessageDelta) => void) | undefined;
  liveness: ModelLiveness;
  streamChannel: StreamChannel | undefined;
  prices: PriceTable | undefined;
  /** Usage counts repaired so far in this call, noted in its result. */
  usageRepairs: string[];
}

/** streamOnce in a GenAI span of its own (a no-op without tracing), its usage repaired and recorded. */
export async function streamMessage(call: ModelStreamCall, messages: readonly ContextMessage[]): Promise<AssembledMessage> {
  const { ctx, input, model } = call;
  const { providerId, modelId } = model.modelInfo();
  const span = startModelSpan({ providerId, modelId, agentId: input.agentId, attempt: ctx.info.attempt }, messages, call.system);
  try {
    const message = await streamOnce(call, messages, span);
    if (message.usage) {
      // Counts a provider got wrong (1e20, negative, NaN) are repaired here, where they enter, and noted.
      const repaired = repairStreamUsage(message.usage);
      message.usage = repaired.usage;
      call.usageRepairs.push(...repaired.repairs);
    }
    span.end(message);
    recordModelCall(input.model, providerId, { ok: true, usage: message.usage, costUsd: message.usage && costOf(call.prices, input.model, message.usage) });
    return message;
  } catch (err) {
    span.fail(err);
    if (!ctx.cancellationSignal.aborted) recordModelCall(input.model, providerId, { ok: false, error: err });
    throw err;
  }
}

/** One stream from the model, to its complete message; every failure becomes the Temporal failure to throw. */
/** The stream options that shape the request body: the same for the call and for `inspect` rendering it again. */
export function wireOptions(
  input: Pick<CallModelInput, 'agentId' | 'runId' | 'cacheTtl'>,
  wire: WireResponseFormat | undefined,
  traceId?: string,
): StreamOptions {
  return {
    requestMetadata: { sessionId: input.agentId, runId: input.runId, ...(traceId ? { traceId } : {}) },
    ...(wire ? { responseFormat: { name: wire.name, schema: wire.schema } } : {}),
    ...(input.cacheTtl ? { cacheTtl: input.cacheTtl } : {}),
  };
}

async function streamOnce(call: ModelStreamCall, messages: readonly ContextMessage[], span: ModelSpan): Promise<AssembledMessage> {
  const { ctx, input, wire, observe } = call;
  // One abort for cancellation, the first-token timeout and stalls.
  const abort = new AbortController();
  const onCancel = () => abort.abort();
  ctx.cancellationSignal.addEventListener('abort', onCancel);
  const watchdog = new StreamWatchdog(call.liveness, input.model, abort, () => progress.idle());
  const assembler = new MessageAssembler();
  const progress = new StreamProgress(ctx, call.streamChannel, assembler, input.model, wire !== undefined, watchdog.startedAt);
  try {
    for await (const delta of call.model.stream(messages, call.toolSpecs, call.system, {
      signal: abort.signal,
      providerRaw: observe !== undefined,
      ...wireOptions(input, wire, ctx.info.activityId),
    })) {
      observe?.(delta);
      if (watchdog.failure) break;
      if (delta.kind !== 'start') {
        watchdog.sawDelta();
        span.firstToken();
      }
      assembler.consume(delta);
      progress.delta();
      if (assembler.status === 'done' || assembler.status === 'error') break;
    }
  } catch (err) {
    if (watchdog.failure) throw watchdog.failure;
    if (ctx.cancellationSignal.aborted) throw err;
    if (err instanceof ApplicationFailure) throw err;
    throw toApplicationFailure(mapProviderError(err));
  } finally {
    watchdog.stop();
    ctx.cancellationSignal.removeEventListener('abort', onCancel);
    progress.end();
  }
  if (watchdog.failure) throw watchdog.failure;

  const error = assembler.getError();
  if (error) throw toApplicationFailure(error);
  if (assembler.status !== 'done') {
    throw ApplicationFailure.create({ type: ModelError.StreamIncomplete, message: 'The model stream ended before it finished.' });
  }
  const message = assembler.buildFinalMessage();
  if (!message.contents.length && !message.toolCalls.length) {
    throw ApplicationFailure.create({ type: 'ModelError.EmptyOutput', message: 'The model returned neither text nor tool calls.' });
  }
  return message;
}

/** The worker's stream observer for one call: what it throws is logged once and ignored. */
export function observerFor(observer: ModelStreamObserver, call: Parameters<ModelStreamObserver>[1]): (delta: MessageDelta) => void {
  let warned = false;
  return (delta) => {
    try {
      observer(delta, call);
    } catch (err) {
      if (!warned) Context.current().log.warn('The model stream observer threw; its errors are ignored for this call.', { error: String(err) });
      warned = true;
    }
  };
}
