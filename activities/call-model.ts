/**
 * The callModel activity: fetch the entries this worker lacks, render the context with the same pure
 * function the workflow's history defines (model-call/prepare-context.ts), stream from the routed model
 * through a MessageAssembler (model-call/stream-message.ts), and return one assembled message
 * (model-call/call-result.ts). While it streams, the partial message goes to the worker's stream
 * endpoint (stream-channel/), which clients read to show output as it forms, and heartbeats only say
 * where and keep the call alive; without an endpoint every heartbeat carries it. It never becomes a
 * history entry. A stream that ends without `done`, a first token that never comes, or a stall is an
 * error (retried), never a message. A worker's stream observer sees every delta, provider events
 * included; the result keeps none of them. A turn whose input asks for a typed answer gets it checked
 * here (see typed-answer.ts). Under policy `compact`, a context over its threshold is not sent: the call
 * answers which entries to summarise first (CompactionNeeded; see compact-context.ts).
 */
import { Context } from '@temporalio/activity';
import { type CompactionNeeded, SubAgentArgs, zodToolSpec, type MessageDelta, type Metadata, type ModelCallResult, wireResponseFormat } from '../agent/index';
import type { ArchiveStore } from '../common/archive/index';
import { ArchiveIndexCache } from './archive-index-cache';
import { inputBudgetFor } from './models/context-window';
import type { EntryCache } from './entry-cache';
import type { ModelRouter } from './models/model-router';
import { otherActivityWorkers, polledProviderQueue, resolveOrPassOn } from './models/missing-provider';
import type { PriceTable } from './models/prices';
import { callResult } from './model-call/call-result';
import { prepareContext } from './model-call/prepare-context';
import { requestFingerprint } from './model-call/request-fingerprint';
import { type ModelStreamCall, observerFor, streamMessage, wireOptions } from './model-call/stream-message';
import type { ToolRegistry } from './tools/registry';
import { typedAnswer } from './typed-answer';
import type { CallModelInput } from './types';
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
  /** Where archived segments are read from. */
  archive: ArchiveStore;
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
  /** The last PARTIAL_MAX_CHARS characters of the text so far (a tail: see textChars; model-call/stream-progress.ts). */
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

export function createCallModel(deps: CallModelDeps) {
  const liveness = deps.liveness ?? DEFAULT_MODEL_LIVENESS;
  const indexes = new ArchiveIndexCache();
  return async function callModel(input: CallModelInput): Promise<ModelCallResult | CompactionNeeded> {
    const ctx = Context.current();
    const { context, responseSchema, archived, known, segments } = await prepareContext({ entries: deps.entries, archive: deps.archive, indexes }, ctx, input);
    if (context.compactThrough !== undefined) {
      // Policy `compact`, over the threshold: no model call; the agent summarises first and asks again.
      const inputBudget = inputBudgetFor(input.model, input.contextWindow)!;
      return { compactThrough: context.compactThrough, estimatedInputTokens: context.calibratedInputTokens ?? context.estimatedInputTokens, inputBudget };
    }
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
    const toolSpecs = [
      ...deps.tools.specsFor(input.tools, { archived }),
      ...(input.subAgentTools ?? []).map((t) => zodToolSpec(t.name, t.description, SubAgentArgs)),
    ];
    // A typed answer's schema comes from the turn's input entry, so no activity input carries it again.
    const wire = responseSchema && wireResponseFormat(responseSchema);
    const observe =
      deps.observeStream && observerFor(deps.observeStream, { agentId: input.agentId, runId: input.runId, model: input.model, attempt: ctx.info.attempt });
    const call: ModelStreamCall = {
      ctx,
      input,
      model,
      toolSpecs,
      system: context.system,
      wire,
      observe,
      liveness,
      streamChannel: deps.streamChannel,
      prices: deps.prices,
      usageRepairs: [],
    };

    // What is sent, fingerprinted before it is (a typed answer's repair requests are not: see typed-answer.ts).
    // A model without a wire request (scripted, the demo) sends nothing to fingerprint, and its entries stay as they were.
    const request = model.request?.(context.messages, toolSpecs, context.system, wireOptions(input, wire));
    const fingerprint =
      request &&
      requestFingerprint({
        input,
        context,
        known,
        segments,
        budget: inputBudgetFor(input.model, input.contextWindow),
        archiveTools: archived,
        tools: toolSpecs.length,
        request,
      });

    const info = model.modelInfo();
    const invocation = { providerId: info.providerId, specification: info.specification, model: info.modelId };
    let message = await streamMessage(call, context.messages);
    let typedMetadata: Metadata | undefined;
    if (responseSchema) {
      const log = (text: string) => ctx.log.info(text, { agentId: input.agentId });
      ({ message, metadata: typedMetadata } = await typedAnswer(message, responseSchema, {
        messages: context.messages,
        uptoSeq: input.uptoSeq,
        invocation,
        model: input.model,
        stream: (messages) => streamMessage(call, messages),
        log,
      }));
    }
    return callResult(message, {
      input,
      context,
      toolSpecs,
      invocation,
      call: ctx.info,
      typedMetadata,
      usageRepairs: call.usageRepairs,
      fingerprint,
      tools: deps.tools,
      prices: deps.prices,
      offloading: deps.offloading,
    });
  };
}
