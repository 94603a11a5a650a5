/** Builds a Worker that hosts agent workflows and runs their model calls and tools. */
import path from 'node:path';
import type { DataConverter } from '@temporalio/common';
import { livecontextBuildId } from './build-id';
import { NativeConnection, Runtime, Worker, type WorkerOptions, bundleWorkflowCode } from '@temporalio/worker';
import { livecontextDataConverter } from '../common/codec/data-converter';
import { type Tracing, startTracing } from '../common/telemetry';
import { installRuntimeMetrics } from '../common/metrics';
import { enabledCategories } from '../common/logging';
import { watchAgentStates } from './agent-state-gauge';
import { deploymentFromEnv } from './deployment-from-env';
import { TRACING_WORKFLOW_MODULE, withTracing } from '../activities/telemetry/worker-tracing';
import { useWorkerMetricMeter } from '../activities/telemetry/activity-metrics';
import { OffloadCodec } from '../common/codec/offload-codec';
import { guardedForWorkers } from '../common/codec/undecodable-guard';
import {
  ModelRouter,
  type ModelLiveness,
  type ModelStreamObserver,
  type PriceTable,
  ToolRegistry,
  anthropicProvider,
  createActivities,
  loadPriceTable,
  openaiProvider,
  offlineDemoProvider,
  workspaceTools,
  type ModelProvider,
  type Tool,
} from '../activities/index';
import { EntryCache } from '../activities/entry-cache';
import { StreamChannel } from '../activities/stream-channel/stream-server';
import { runCommandTool } from '../activities/tools/run-command';
import { type HttpRequestOptions, createHttpRequestTool, httpRequestFromEnv } from '../activities/tools/http-request';
import { ARCHIVE_TOOLS_SOURCE, archiveTools } from '../activities/tools/archive-tools';
import { ArchiveStore } from '../common/archive/index';
import { ENTRY_FEED_SINK, type EntryFeed } from '../workflows/entry-feed';
import { TASK_QUEUE } from '../workflows/messages';
import { type McpServersOption, closeWithWorker, startMcpServers } from './mcp-servers';
import { type A2aAgentsOption, startA2aAgents } from './a2a-agents';
import { createProviderWorkers, release, runWithProviderWorkers } from './provider-workers';

export interface LivecontextWorkerOptions {
  connection: NativeConnection;
  namespace?: string;
  taskQueue?: string;
  /** Your tools, in addition to the built-in workspace tools (unless `builtinTools: false`). */
  tools?: Tool[];
  builtinTools?: boolean;
  /**
   * MCP servers whose tools this worker offers, named `<server>__<tool>`: the ecosystem's `mcpServers`
   * JSON (`{ mcpServers: { fs: { command, args, env }, docs: { url, headers } } }`, `${VAR}` read from
   * this process's environment). A server that fails to start is logged and skipped.
   */
  mcpServers?: McpServersOption;
  /**
   * Remote A2A agents offered as tools, one each, named by their key: `{ a2aAgents: { billing: { url,
   * tokenEnv?, description?, timeout? } } }` (beside `mcpServers` in the same file; see docs/a2a.md). The
   * bearer token is read from the environment variable `tokenEnv` names.
   */
  a2aAgents?: A2aAgentsOption;
  /** Offer `run_command` (shell commands in the agent's workspace). Off unless true or LIVECONTEXT_RUN_COMMAND=1. */
  runCommand?: boolean;
  /**
   * Offer `http_request` to the hosts listed (`{ hosts: ['api.example.com', 'localhost:8080'] }`); each
   * call waits for approval unless `approval: false`. Default: LIVECONTEXT_HTTP_HOSTS (and
   * LIVECONTEXT_HTTP_APPROVAL=0); not offered without a list; false: not offered.
   */
  httpRequest?: HttpRequestOptions | false;
  /**
   * Model providers by `provider` id. Default: `openai` (OPENAI_API_KEY, OPENAI_BASE_URL), `anthropic`
   * (ANTHROPIC_API_KEY), `azure` (AZURE_OPENAI_*) and the offline `demo`; yours are added (same id replaces).
   */
  models?: ModelProvider[];
  /** First-token and stall timeouts of model calls. */
  liveness?: ModelLiveness;
  /** $ per million tokens by `provider:model` prefix; default from LIVECONTEXT_PRICES (a JSON file). */
  prices?: PriceTable;
  /** Sees every delta of every model call, with the provider's raw events (`providerRaw`); never history. */
  observeModelStream?: ModelStreamObserver;
  /**
   * Where model calls stream their partial output (activities/stream-channel). Default: an endpoint
   * configured by LIVECONTEXT_STREAM_* (127.0.0.1 on a free port; LIVECONTEXT_STREAM_CHANNEL=0 turns it
   * off); false: partial output travels in heartbeats, each a Temporal action.
   */
  streamChannel?: StreamChannel | false;
  /**
   * Where the agents' archives are written and read (seals, model calls, `recall` and `expand`). Default: ArchiveStore.fromEnv(),
   * the environment's blob store and codec keys, as every other worker and client of the agents must use.
   */
  archive?: ArchiveStore;
  /** Parent folder of the agents' workspaces (default `.livecontext/workspaces`). */
  workspaceRoot?: string;
  /** A prebuilt workflow bundle (from bundleWorkflowCode), to skip bundling at start-up. */
  workflowBundle?: WorkerOptions['workflowBundle'];
  /** Payload codecs (encryption, offloading). Default: livecontextDataConverter() from the environment. */
  dataConverter?: DataConverter;
  /**
   * Whether the data converter offloads large payloads (default: true when it has livecontext's
   * offloading codec or Temporal's external storage). Without it, what would exceed Temporal's 2 MB
   * payload limit is refused with a clear error instead of being sent.
   */
  offloading?: boolean;
  /** Anything else Temporal's Worker accepts (concurrency, identity, sinks, interceptors…). */
  workerOptions?: Partial<WorkerOptions>;
  /** Start-up steps as they begin ("bundling agent workflow code…"), for a person watching. */
  progress?: (step: string) => void;
  /**
   * OpenTelemetry tracing (common/telemetry.ts). Default: started from the OTEL_* environment, off when
   * none is set; false: off. With tracing and a prebuilt `workflowBundle`, bundle it with
   * `workflowInterceptorModules: [TRACING_WORKFLOW_MODULE]` so workflow spans exist.
   */
  tracing?: Tracing | false;
  /**
   * Stack traces in workflow code (default false; LIVECONTEXT_WORKFLOW_STACK_TRACES=1): the Temporal UI's
   * stack-trace view and frames on errors thrown by workflow code. Off, each turn costs the worker about
   * a sixth less CPU (Temporal records a trace for every promise workflow code creates). Applies to the
   * bundle this function builds; bundle your own with WORKFLOW_STACK_TRACES_PATH after SHARED_MODULES_PATH.
   */
  workflowStackTraces?: boolean;
}

export const WORKFLOWS_PATH = require.resolve('../workflows/index');
/**
 * The agent core and zod, shared by every workflow of a worker thread instead of evaluated for each one
 * (workflows/shared-modules.ts): bundle with `preloadModules: [SHARED_MODULES_PATH]`. About 1.5 MiB less
 * heap per cached agent and ~14 ms less per new or replayed one; a bundle without it works the same.
 */
export const SHARED_MODULES_PATH = require.resolve('../workflows/shared-modules');

/**
 * Preloaded after SHARED_MODULES_PATH, keeps workflow-side stack traces, which the shared modules turn
 * off: the Temporal UI's stack-trace view and workflow errors' frames, at about a sixth of each turn's
 * workflow-thread time (`workflowStackTraces`, LIVECONTEXT_WORKFLOW_STACK_TRACES=1).
 */
export const WORKFLOW_STACK_TRACES_PATH = require.resolve('../workflows/stack-traces-on');

/**
 * Preloaded after SHARED_MODULES_PATH, sends the workflow's category debug lines (LIVECONTEXT_DEBUG) to the
 * worker's logger, which the shared modules leave unsent (workflows/debug-logs.ts): createLivecontextWorker
 * adds it to the bundle it builds when LIVECONTEXT_DEBUG names a category.
 */
export const DEBUG_LOGS_PATH = require.resolve('../workflows/debug-logs-on');

/** The worker's default `stickyQueueScheduleToStartTimeout` (see createLivecontextWorker); `workerOptions` may set another. */
export const STICKY_SCHEDULE_TO_START_TIMEOUT = '3 seconds';

export async function createLivecontextWorker(options: LivecontextWorkerOptions): Promise<Worker> {
  const runCommand = options.runCommand ?? process.env.LIVECONTEXT_RUN_COMMAND === '1';
  const http = options.httpRequest === false ? undefined : (options.httpRequest ?? httpRequestFromEnv());
  // One archive store (and read cache) for the model calls, the seals and the recall tools.
  const archive = options.archive ?? ArchiveStore.fromEnv();
  const tools = new ToolRegistry(options.tools ?? [], [
    {
      name: 'builtin',
      tools: [
        ...(options.builtinTools === false ? [] : workspaceTools),
        ...(runCommand ? [runCommandTool] : []),
        ...(http ? [createHttpRequestTool(http)] : []),
      ],
    },
    // Offered only to agents with archived or compacted turns (ToolRegistry.specsFor).
    { name: ARCHIVE_TOOLS_SOURCE, tools: archiveTools({ archive }) },
  ]);
  const mcp = options.mcpServers ? await startMcpServers(options.mcpServers, tools, options.progress) : undefined;
  if (options.a2aAgents) await startA2aAgents(options.a2aAgents, tools, options.progress);
  const models = new ModelRouter([offlineDemoProvider, openaiProvider(), anthropicProvider(), openaiProvider({ azure: {} }), ...(options.models ?? [])]);
  const workspaceRoot = path.resolve(options.workspaceRoot ?? path.join('.livecontext', 'workspaces'));
  const dataConverter = options.dataConverter ?? livecontextDataConverter();
  const offloading =
    options.offloading ?? (dataConverter.externalStorage !== undefined || (dataConverter.payloadCodecs ?? []).some((c) => c instanceof OffloadCodec));
  const tracing = options.tracing === false ? undefined : (options.tracing ?? startTracing());
  installRuntimeMetrics(); // says so when metrics are asked for but the connection's runtime was made without them
  const tracingModules = tracing ? [TRACING_WORKFLOW_MODULE] : [];
  const stackTraces = options.workflowStackTraces ?? process.env.LIVECONTEXT_WORKFLOW_STACK_TRACES === '1';
  // One entry cache for the callModel activities and the agents' workflows on this worker, which hand it
  // each model call's new entries in-process (no `entries` query per model call; see workflows/entry-feed.ts).
  const entryCache = new EntryCache();
  const streamChannel = options.streamChannel === false ? undefined : (options.streamChannel ?? (await StreamChannel.fromEnvironment((m) => console.warn(m))));
  let worker: Worker;
  try {
    const deployment = options.workerOptions?.workerDeploymentOptions ?? deploymentFromEnv();
    const workerOptions: Partial<WorkerOptions> = {
      ...options.workerOptions,
      ...(deployment ? { workerDeploymentOptions: deployment } : {}),
      sinks: {
        ...options.workerOptions?.sinks,
        [ENTRY_FEED_SINK]: { appended: { fn: (info, feed: EntryFeed) => entryCache.feed(info.workflowId, feed) } },
      },
      ...(tracing && options.workerOptions?.workflowsPath
        ? {
            interceptors: {
              ...options.workerOptions.interceptors,
              workflowModules: [...tracingModules, ...(options.workerOptions.interceptors?.workflowModules ?? [])],
            },
          }
        : {}),
    };
    const activities = createActivities({
      models,
      tools,
      workspaceRoot,
      liveness: options.liveness,
      prices: options.prices ?? loadPriceTable(),
      offloading,
      observeModelStream: options.observeModelStream,
      entryCache,
      streamChannel,
      archive,
    });
    const workflowBundle = options.workerOptions?.workflowsPath
      ? undefined
      : (options.workflowBundle ?? (await bundleQuietly(options.progress, tracingModules, stackTraces)));
    const agentsWorkerOptions: WorkerOptions = {
      connection: options.connection,
      namespace: options.namespace ?? 'default',
      taskQueue: options.taskQueue ?? TASK_QUEUE,
      ...(workflowBundle ? { workflowBundle } : {}),
      // A build ID of the user's own (or a worker deployment's) is theirs; otherwise the change mark (worker/build-id.ts).
      ...(options.workerOptions?.buildId || deployment ? {} : markedBuildId(workflowBundle)),
      activities,
      // No payload a sender can produce may stall an agent: see UndecodableGuardCodec.
      dataConverter: guardedForWorkers(dataConverter),
      // Heartbeats carry the partial output clients display; send them often enough to look live.
      maxHeartbeatThrottleInterval: '250 ms',
      defaultHeartbeatThrottleInterval: '250 ms',
      // A workflow task sent to the sticky queue of a worker that died (killed, not shut down) waits this
      // long before any other worker may take it; Temporal gives up on that queue by itself only once it
      // has not been polled for 10 s. 3 s (the SDK's default: 10 s) is far above a live worker's pick-up
      // time and keeps a turn whose worker died mid-tool within ~10 s (bench: recovery mid-tool).
      stickyQueueScheduleToStartTimeout: STICKY_SCHEDULE_TO_START_TIMEOUT,
      ...(tracing ? withTracing(workerOptions, tracing) : workerOptions),
    };
    useWorkerMetricMeter(Runtime.instance().metricMeter); // the runtime Worker.create uses: instruments made once
    worker = await Worker.create(agentsWorkerOptions);
    const providerWorkers = await createProviderWorkers({ models, options: agentsWorkerOptions, callModel: activities.callModel }).catch(async (err) => {
      await release(worker);
      throw err;
    });
    runWithProviderWorkers(worker, providerWorkers);
  } catch (err) {
    await mcp?.close(); // no worker will run: end the MCP servers it started
    if (!options.streamChannel) await streamChannel?.close();
    throw err;
  }
  if (mcp) closeWithWorker(worker, mcp);
  if (streamChannel && !options.streamChannel) {
    // The endpoint this function started ends with the worker (one passed in belongs to its caller).
    const run = worker.run.bind(worker);
    worker.run = () => run().finally(() => streamChannel.close());
  }
  watchAgentStates(worker); // livecontext_agents{state}, counted by visibility, when metrics are on
  return worker;
}

/** The build ID with the bundle's change mark (worker/build-id.ts), when it has one. */
function markedBuildId(bundle: WorkerOptions['workflowBundle']): { buildId?: string } {
  const buildId = livecontextBuildId(bundle);
  return buildId ? { buildId } : {};
}

/** The agent workflow's bundle, built without webpack's module listing on the console. */
async function bundleQuietly(progress: ((step: string) => void) | undefined, interceptorModules: string[], stackTraces: boolean): Promise<{ code: string }> {
  progress?.('bundling agent workflow code…');
  const silent = { info() {}, warn() {}, debug() {}, trace() {}, log() {}, error: (message: string) => console.error(message) };
  return bundleWorkflowCode({
    workflowsPath: WORKFLOWS_PATH,
    workflowInterceptorModules: interceptorModules,
    preloadModules: [SHARED_MODULES_PATH, ...(stackTraces ? [WORKFLOW_STACK_TRACES_PATH] : []), ...(enabledCategories().size ? [DEBUG_LOGS_PATH] : [])],
    logger: silent as never,
  });
}
