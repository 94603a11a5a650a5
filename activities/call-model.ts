/**
 * The callModel activity: fetch the entries this worker lacks, render the context with the same pure
 * function the workflow's history defines, stream from the routed model through a MessageAssembler, and
 * return one assembled message. While it streams, the partial message goes to the worker's stream
 * endpoint (stream-channel/), which clients read to show output as it forms, and heartbeats only say
 * where and keep the call alive; without an endpoint every heartbeat carries it. It never becomes a
 * history entry. A stream
 * that ends without `done`, a first token that never comes, or a stall is an error (retried), never a
 * message. A worker's stream observer sees every delta, provider events included; the result keeps
 * none of them. A turn whose input asks for a typed answer gets it checked here (see typed-answer.ts).
 */
import { Context } from '@temporalio/activity';
import { ApplicationFailure } from '@temporalio/common';
import {
  SubAgentArgs,
  zodToolSpec,
  type AssembledMessage,
  type ContextMessage,
  type HistoryEntry,
  MAX_INLINE_PAYLOAD_BYTES,
  MessageAssembler,
  type MessageDelta,
  type Metadata,
  type ModelCallResult,
  type ModelContext,
  type ModelContextOptions,
  bytesPerTokenEstimate,
  renderModelContext,
  turnResponseSchema,
  utf8Length,
  wireResponseFormat,
} from '../agent/index';
import type { EntryCache } from './entry-cache';
import { inputBudgetFor, tokenizerFor } from './models/context-window';
import type { ModelRouter } from './models/model-router';
import { otherActivityWorkers, polledProviderQueue, resolveOrPassOn } from './models/missing-provider';
import { repairStreamUsage } from './models/usage-repair';
import { type PriceTable, costOf } from './models/prices';
import { recordModelCall } from './telemetry/activity-metrics';
import { ModelError, mapProviderError, toApplicationFailure } from './models/provider-errors';
import { catalogChange } from './tool-catalog';
import type { ToolRegistry } from './tools/registry';
import { typedAnswer } from './typed-answer';
import type { CallModelInput } from './types';
import { type ModelSpan, startModelSpan } from './telemetry/model-span';
import type { StreamChannel, StreamLocation } from './stream-channel/stream-server';

export interface ModelLiveness {
  /** Longest wait for the first delta after the request is sent. */
  firstTokenTimeoutMs: number;
  /** Longest gap between two deltas once streaming. */
  stallTimeoutMs: number;
}

export const DEFAULT_MODEL_LIVENESS: ModelLiveness = { firstTokenTimeoutMs: 120_000, stallTimeoutMs: 60_000 };

export interface CallModelDeps {
  models: ModelRouter;
  tools: ToolRegistry;
  entries: EntryCache;
  liveness?: ModelLiveness;
  prices?: PriceTable;
  /** False when the worker does not offload large payloads: an answer over the inline limit is refused. */
  offloading?: boolean;
  observeStream?: ModelStreamObserver;
  /**
   * The worker's stream endpoint. With it, partial output goes to readers over it and heartbeats only
   * keep the call alive (a few per call whatever its length); without it, every heartbeat carries the
   * partial output (about four a second while streaming, each a billable Temporal action).
   */
  streamChannel?: StreamChannel;
}

/**
 * Sees each delta of every model call this worker makes, with the provider's own events on it
 * (`providerRaw`): for debugging and telemetry on the worker. It must not throw (what it throws is
 * logged and ignored) and should not block; nothing it sees reaches history.
 */
export type ModelStreamObserver = (delta: MessageDelta, call: { agentId: string; runId: string; model: string; attempt: number }) => void;

/** Heartbeat detail while streaming: a bounded view of the partial message. */
export interface PartialOutput {
  attempt: number;
  model: string;
  /** The last PARTIAL_MAX_CHARS characters of the text so far (a tail: see textChars). */
  text: string;
  /** Length of the whole text so far, so `text` starts at character `textChars - text.length`. Absent from workers before it. */
  textChars?: number;
  /** The model call's activity id: the same across retries of one call, another for a fallback model's call. */
  callId?: string;
  thinking: string;
  toolCalls: Array<{ name: string; arguments: string }>;
  /** Where this call's partial output streams (the worker's stream endpoint); absent on the heartbeat path. */
  channel?: StreamLocation;
}
const PARTIAL_MAX_CHARS = 16 * 1024;
/** On the stream endpoint, a liveness heartbeat every this fraction of the heartbeat timeout. */
const LIVENESS_FRACTION = 0.6;

export function createCallModel(deps: CallModelDeps) {
  const liveness = deps.liveness ?? DEFAULT_MODEL_LIVENESS;
  return async function callModel(input: CallModelInput): Promise<ModelCallResult> {
    const ctx = Context.current();
    // The entries query waits for the agent's workflow worker, and a large context takes a while to
    // count; together they can outlast the heartbeat timeout, which would retry a call not yet started.
    const preparing = setInterval(() => ctx.heartbeat(), 1000);
    const { context, responseSchema } = await deps.entries
      .entriesUpTo(ctx.client, input.agentId, input.runId, input.uptoSeq)
      .then(async (entries) => ({ context: await renderCounted(entries, input), responseSchema: turnResponseSchema(entries) }))
      .finally(() => clearInterval(preparing));
    // A key this worker lacks may be on another worker: the call goes to its provider's queue if the agent
    // can route it and a worker polls there, else it is handed back to this queue a few times first.
    const attempt = { attempt: ctx.info.attempt, maximumAttempts: ctx.info.retryPolicy?.maximumAttempts, firstScheduledMs: ctx.info.scheduledTimestampMs };
    const { activityNamespace: namespace, taskQueue } = ctx.info;
    const model = await resolveOrPassOn(
      deps.models,
      input.model,
      attempt,
      () => otherActivityWorkers(ctx.client, namespace, taskQueue),
      input.routable ? () => polledProviderQueue(ctx.client, namespace, taskQueue, input.model) : undefined,
    );
    if (input.params) model.updateConfig(input.params);
    // The agent's sub-agents are tools of its own (they run in the workflow), offered beside the worker's.
    const toolSpecs = [...deps.tools.specsFor(input.tools), ...(input.subAgentTools ?? []).map((t) => zodToolSpec(t.name, t.description, SubAgentArgs))];
    // A typed answer's schema comes from the turn's input entry, so no activity input carries it again.
    const wire = responseSchema && wireResponseFormat(responseSchema);
    const observe =
      deps.observeStream && observerFor(deps.observeStream, { agentId: input.agentId, runId: input.runId, model: input.model, attempt: ctx.info.attempt });

    /** One stream from the model, to its complete message; every failure becomes the Temporal failure to throw. */
    const streamOnce = async (messages: readonly ContextMessage[], span: ModelSpan): Promise<AssembledMessage> => {
      // One abort for cancellation, the first-token timeout and stalls.
      const abort = new AbortController();
      const onCancel = () => abort.abort();
      ctx.cancellationSignal.addEventListener('abort', onCancel);
      let watchdogFailure: ApplicationFailure | undefined;
      let lastDeltaAt: number | undefined;
      const startedAt = Date.now();
      const watchdog = setInterval(
        () => {
          const now = Date.now();
          if (lastDeltaAt === undefined && now - startedAt > liveness.firstTokenTimeoutMs) {
            watchdogFailure = ApplicationFailure.create({
              type: ModelError.FirstTokenTimeout,
              message: `No output from ${input.model} within ${liveness.firstTokenTimeoutMs} ms.`,
            });
          } else if (lastDeltaAt !== undefined && now - lastDeltaAt > liveness.stallTimeoutMs) {
            watchdogFailure = ApplicationFailure.create({
              type: ModelError.Stalled,
              message: `${input.model} stalled for ${liveness.stallTimeoutMs} ms mid-stream.`,
            });
          }
          if (watchdogFailure) abort.abort();
          else if (channel) beat(false);
          else ctx.heartbeat(); // keep the activity alive while waiting for a slow first token
        },
        Math.min(1000, liveness.stallTimeoutMs / 4, liveness.firstTokenTimeoutMs / 4),
      );

      const assembler = new MessageAssembler();
      let partialAt = Date.now(); // a call that ends within 100 ms sends no heartbeat at all
      // The stream endpoint's path: the first heartbeat says where the deltas are, later ones only keep
      // the call alive (with the partial output then, for readers that cannot reach the endpoint), every
      // LIVENESS_FRACTION of the heartbeat timeout: a few per call, however long the answer.
      const channel = deps.streamChannel?.open(ctx.info.attempt);
      const livenessMs = Math.max(1000, LIVENESS_FRACTION * (ctx.info.heartbeatTimeoutMs ?? 10_000));
      let beatAt = 0;
      const snapshot = () => ({ ...partialOutput(assembler.snapshot(), ctx.info, input.model, wire !== undefined), channel: channel!.location });
      const beat = (force: boolean) => {
        if (!force && Date.now() - beatAt < livenessMs) return;
        beatAt = Date.now();
        ctx.heartbeat(snapshot());
      };
      try {
        for await (const delta of model.stream(messages, toolSpecs, context.system, {
          signal: abort.signal,
          requestMetadata: { sessionId: input.agentId, runId: input.runId, traceId: ctx.info.activityId },
          providerRaw: observe !== undefined,
          ...(wire ? { responseFormat: { name: wire.name, schema: wire.schema } } : {}),
        })) {
          observe?.(delta);
          if (watchdogFailure) break;
          if (delta.kind !== 'start') {
            lastDeltaAt = Date.now();
            span.firstToken();
          }
          assembler.consume(delta);
          // The snapshot parses tool arguments; building it at most every 100 ms (50 on the stream
          // endpoint, which costs no action) keeps long streams linear.
          if (Date.now() - partialAt >= (channel ? 50 : 100)) {
            partialAt = Date.now();
            if (channel) {
              // The first heartbeat names the stream, once the call has streamed for 100 ms: a short
              // answer costs no heartbeat at all, as on the heartbeat path.
              if (!beatAt && Date.now() - startedAt >= 100) beat(true);
              channel.publish(snapshot());
            } else ctx.heartbeat(partialOutput(assembler.snapshot(), ctx.info, input.model, wire !== undefined));
          }
          if (assembler.status === 'done' || assembler.status === 'error') break;
        }
      } catch (err) {
        if (watchdogFailure) throw watchdogFailure;
        if (ctx.cancellationSignal.aborted) throw err;
        if (err instanceof ApplicationFailure) throw err;
        throw toApplicationFailure(mapProviderError(err));
      } finally {
        clearInterval(watchdog);
        ctx.cancellationSignal.removeEventListener('abort', onCancel);
        // Readers get the whole streamed text before the end; the answer itself comes from history.
        if (channel) {
          channel.publish(snapshot());
          channel.end();
        }
      }
      if (watchdogFailure) throw watchdogFailure;

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
    };
    const usageRepairs: string[] = [];
    /** streamOnce in a GenAI span of its own (a no-op without tracing). */
    const streamMessage = async (messages: readonly ContextMessage[]): Promise<AssembledMessage> => {
      const { providerId, modelId } = model.modelInfo();
      const span = startModelSpan({ providerId, modelId, agentId: input.agentId, attempt: ctx.info.attempt }, messages, context.system);
      try {
        const message = await streamOnce(messages, span);
        if (message.usage) {
          // Counts a provider got wrong (1e20, negative, NaN) are repaired here, where they enter, and noted.
          const repaired = repairStreamUsage(message.usage);
          message.usage = repaired.usage;
          usageRepairs.push(...repaired.repairs);
        }
        span.end(message);
        recordModelCall(input.model, providerId, { ok: true, usage: message.usage, costUsd: message.usage && costOf(deps.prices, input.model, message.usage) });
        return message;
      } catch (err) {
        span.fail(err);
        if (!ctx.cancellationSignal.aborted) recordModelCall(input.model, providerId, { ok: false, error: err });
        throw err;
      }
    };

    const info = model.modelInfo();
    const invocation = { providerId: info.providerId, specification: info.specification, model: info.modelId };
    let message = await streamMessage(context.messages);
    let typedMetadata: Metadata | undefined;
    if (responseSchema) {
      const log = (text: string) => ctx.log.info(text, { agentId: input.agentId });
      ({ message, metadata: typedMetadata } = await typedAnswer(message, responseSchema, {
        messages: context.messages,
        uptoSeq: input.uptoSeq,
        invocation,
        model: input.model,
        stream: streamMessage,
        log,
      }));
    }
    // Names the model made up: their calls fail at once, while a tool that was offered but is missing on
    // the worker that runs it is handed to another worker (see tools/missing-tool.ts).
    // Named exactly in the agent's allowance (not by a pattern): expected to exist on some worker.
    const offered = new Set([...toolSpecs.map((s) => s.name), ...(input.tools ?? []).filter((n) => !n.endsWith('*'))]);
    const unoffered = [...new Set(message.toolCalls.map((c) => c.toolName).filter((n) => !offered.has(n)))];
    const result: ModelCallResult = {
      contents: message.contents,
      toolCalls: message.toolCalls,
      invocation,
      metadata: {
        estimated_input_tokens: context.estimatedInputTokens,
        // Which call and attempt produced this output, so a stream that showed its text as it formed knows
        // whether the text continues what it showed (the workflow does not read these).
        attempts: ctx.info.attempt,
        call_id: ctx.info.activityId,
        ...(context.dropped ? { context_dropped: context.dropped } : {}),
        ...(unoffered.length ? { unoffered_tools: unoffered.map((n) => n.slice(0, 64)).slice(0, 10) } : {}),
        ...typedMetadata,
        ...(usageRepairs.length ? { usage_repaired: usageRepairs.join('; ').slice(0, 300) } : {}),
      },
    };
    const catalog = catalogChange(deps.tools, input.tools, input.catalogDigest);
    if (catalog) result.toolCatalog = catalog;
    if (message.thinking) result.thinking = message.thinking;
    if (message.thinkingSignature) result.thinkingSignature = message.thinkingSignature;
    if (message.usage) {
      // Into history as seed 000's TokenUsage: the stream's totalTokens is derivable, so left out.
      const { totalTokens: _total, ...usage } = message.usage;
      const costUsd = costOf(deps.prices, input.model, usage);
      result.usage = costUsd === undefined ? usage : { ...usage, costUsd };
    }
    const bytes = deps.offloading === false ? utf8Length(JSON.stringify(result)) : 0;
    if (bytes > MAX_INLINE_PAYLOAD_BYTES) {
      // Temporal would refuse the result anyway; say why, once (retrying cannot make it smaller).
      throw ApplicationFailure.create({
        type: ModelError.OutputTooLarge,
        nonRetryable: true,
        message: `The answer of ${input.model} is ${(bytes / 1024 / 1024).toFixed(1)} MB, over Temporal's 2 MB payload limit, and this worker does not offload large payloads (LIVECONTEXT_OFFLOAD=0). Turn offloading on, or lower maxTokens.`,
      });
    }
    return result;
  };
}

/**
 * The model context, counted with the model's tokenizer when it has one. Tokenizing is CPU-bound and
 * this event loop serves every agent of the worker, so the texts are counted first, in slices (a first
 * render with the byte estimate names them), and the real render then finds every count memoised.
 */
async function renderCounted(entries: readonly HistoryEntry[], input: CallModelInput): Promise<ModelContext> {
  const maxInputTokens = inputBudgetFor(input.model, input.contextWindow);
  const options: ModelContextOptions = {
    uptoSeq: input.uptoSeq,
    ...(maxInputTokens !== undefined ? { maxInputTokens } : {}),
    ...(input.refusedAttachments?.length ? { refusedAttachments: input.refusedAttachments } : {}),
  };
  const counter = tokenizerFor(input.model);
  if (!counter) return renderModelContext(entries, options);
  const texts: string[] = [];
  renderModelContext(entries, { ...options, tokenizer: (text) => (texts.push(text), bytesPerTokenEstimate(text)) });
  await counter.prepare(texts);
  return renderModelContext(entries, { ...options, tokenizer: counter.count });
}

function observerFor(observer: ModelStreamObserver, call: Parameters<ModelStreamObserver>[1]): (delta: MessageDelta) => void {
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

/**
 * `typed`: the turn wants a typed answer, whose text is left out: it is JSON for a program, and what is
 * recorded (repaired, normalised, perhaps re-asked) need not continue what streamed.
 */
function partialOutput(m: AssembledMessage, call: { attempt: number; activityId: string }, model: string, typed: boolean): PartialOutput {
  const tail = (s: string) => (s.length > PARTIAL_MAX_CHARS ? s.slice(-PARTIAL_MAX_CHARS) : s);
  const text = typed ? '' : m.contents.join('');
  return {
    attempt: call.attempt,
    model,
    text: tail(text),
    textChars: text.length,
    callId: call.activityId,
    thinking: tail(m.thinking ?? ''),
    toolCalls: m.toolCalls.map((c) => ({ name: c.toolName, arguments: tail(c.rawArguments) })),
  };
}
