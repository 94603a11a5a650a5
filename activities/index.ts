/**
 * The agent's activities, built from the worker's registries. Workflows import this module as a type
 * only (`ReturnType<typeof createActivities>`), so no Node or vendor code reaches the sandbox.
 */
import { type ModelLiveness, type ModelStreamObserver, createCallModel } from './call-model';
import { createCompactContext } from './compact-context';
import type { PriceTable } from './models/prices';
import { EntryCache } from './entry-cache';
import { ArchiveStore } from '../common/archive/index';
import { createSealArchive } from './seal-archive';
import { ArchiveIndexCache } from './archive-index-cache';
import { createExecuteTool } from './execute-tool';
import { deliverScheduledInput } from './deliver-scheduled-input';
import { deliverA2aPush } from './deliver-a2a-push';
import { createRewindPoint } from './rewind-point';
import { type InspectCallInput, type InspectedCall, NotAModelCall, inspectCall } from './inspect-call';
import { Context } from '@temporalio/activity';
import { ApplicationFailure } from '@temporalio/common';
import type { ModelRouter, ProviderReadiness } from './models/model-router';
import type { ToolRegistry } from './tools/registry';
import type { PayloadLimits } from './types';
import type { StreamChannel } from './stream-channel/stream-server';

export interface ActivityDeps {
  models: ModelRouter;
  tools: ToolRegistry;
  workspaceRoot: string;
  liveness?: ModelLiveness;
  prices?: PriceTable;
  /**
   * Whether this worker's data converter offloads large payloads (default true). Without it a model
   * answer or a carried state over Temporal's 2 MB payload limit is refused with a clear error instead.
   */
  offloading?: boolean;
  /** Sees every model stream delta, provider events included (see call-model.ts). */
  observeModelStream?: ModelStreamObserver;
  /** The worker's cache of agent entries, when the worker feeds it too (see workflows/entry-feed.ts). */
  entryCache?: EntryCache;
  /** The archive of sealed segments (default: from the environment, as every worker and client). */
  archive?: ArchiveStore;
  /** The worker's stream endpoint for partial output (see stream-channel/); without it, heartbeats carry it. */
  streamChannel?: StreamChannel;
}

export function createActivities(deps: ActivityDeps) {
  const offloading = deps.offloading ?? true;
  const entries = deps.entryCache ?? new EntryCache();
  const archive = deps.archive ?? ArchiveStore.fromEnv();
  return {
    callModel: createCallModel({
      models: deps.models,
      tools: deps.tools,
      entries,
      archive,
      liveness: deps.liveness,
      prices: deps.prices,
      offloading,
      observeStream: deps.observeModelStream,
      streamChannel: deps.streamChannel,
    }),
    /** The summary call of a compaction (policy `compact`), recorded by the workflow as a compaction entry. */
    compactContext: createCompactContext({
      models: deps.models,
      entries,
      archive,
      indexes: new ArchiveIndexCache(),
      liveness: deps.liveness,
      prices: deps.prices,
    }),
    /** Seals the agent's oldest working entries into a segment of its archive. */
    sealArchive: createSealArchive({ entries, archive }),
    /** For a rewind to an archived entry: the state at that entry, read from its segment. */
    rewindPoint: createRewindPoint({ archive }),
    executeTool: createExecuteTool({ tools: deps.tools, workspaceRoot: deps.workspaceRoot }),
    /** A local activity the workflow asks before carrying a state too large to pass inline. */
    async payloadLimits(): Promise<PayloadLimits> {
      return { offloading };
    },
    /** The activity of scheduledInputWorkflow: one scheduled input to its agent. */
    deliverScheduledInput,
    deliverA2aPush,
    /** A local activity of inspectCallWorkflow: one model call rendered again from history (see inspect-call.ts). */
    async inspectModelCall(request: InspectCallInput): Promise<InspectedCall> {
      try {
        return await inspectCall({ models: deps.models, tools: deps.tools, entries, archive }, Context.current().client, request);
      } catch (err) {
        if (err instanceof NotAModelCall) throw ApplicationFailure.create({ type: 'NotAModelCall', message: err.message, nonRetryable: true });
        throw err;
      }
    },
    /** A local activity of workerInfoWorkflow: this worker's model providers and whether each can be called. */
    async describeProviders(): Promise<ProviderReadiness[]> {
      return deps.models.readiness();
    },
  };
}

/** What the worker, the workflows (as types) and the tests take from the activities; the public list is worker/index.ts. */
export { ModelRouter, type ModelProvider, type ProviderReadiness } from './models/model-router';
export { openaiProvider } from './models/openai-model';
export { anthropicProvider } from './models/anthropic-model';
export { ModelError } from './models/provider-errors';
export { type PriceTable, loadPriceTable } from './models/prices';
export { type ModelLiveness, type ModelStreamObserver, type PartialOutput } from './call-model';
export { type InspectCallInput, type InspectedCall } from './inspect-call';
export { ScriptedModelProvider, type Script, type ScriptStep, type ScriptedRequest } from './models/scripted-model';
export { offlineDemoProvider } from './models/offline-demo-model';
export { ToolRegistry } from './tools/registry';
export { defineTool, type Tool, type ToolContext, ToolRetryableError, ToolTimeoutError, type ToolRetryPolicy } from './tools/define-tool';
export { workspaceTools } from './tools/workspace-tools';
