/**
 * Runs a livecontext worker against the configured Temporal server until it is asked to stop.
 * Shared by `livecontext worker`, `livecontext dev` and `npm start`.
 */
import { NativeConnection, type Worker } from '@temporalio/worker';
import type { ModelProvider, Tool } from '../activities/index';
import { type ConnectSettings, connectSettings, unreachableServer } from '../common/connection';
import { createLivecontextWorker } from './create-worker';
import type { McpServersOption } from './mcp-servers';
import { installLogging } from '../common/logging';
import { startTracing } from '../common/telemetry';
import { listPollers, otherWorkersNotice } from '../client/worker-status';

export interface RunningWorker {
  worker: Worker;
  settings: ConnectSettings;
  /** Resolves when the worker has stopped. */
  done: Promise<void>;
  stop(): Promise<void>;
}

export async function startWorker(options: {
  address?: string;
  namespace?: string;
  taskQueue?: string;
  tools?: Tool[];
  models?: ModelProvider[];
  workspaceRoot?: string;
  /** MCP servers whose tools the worker offers (see LivecontextWorkerOptions.mcpServers). */
  mcpServers?: McpServersOption;
  /** Start-up steps as they begin, for a person watching (default: none). */
  progress?: (step: string) => void;
  /** What a person should know at start (other workers on the task queue); default: stderr. */
  notice?: (text: string) => void;
}): Promise<RunningWorker> {
  installLogging();
  const settings = connectSettings({ address: options.address, namespace: options.namespace, taskQueue: options.taskQueue });
  options.progress?.(`connecting to Temporal at ${settings.address}…`);
  let connection: NativeConnection;
  try {
    connection = await NativeConnection.connect(settings.connectionOptions);
  } catch (err) {
    throw unreachableServer(settings.address, err);
  }
  const tracing = startTracing(); // from OTEL_*; undefined (off) when none is set
  const worker = await createLivecontextWorker({
    tracing: tracing ?? false,
    ...(options.progress ? { progress: options.progress } : {}),
    connection,
    namespace: settings.namespace,
    taskQueue: settings.taskQueue,
    ...(options.tools ? { tools: options.tools } : {}),
    ...(options.models ? { models: options.models } : {}),
    ...(options.workspaceRoot ? { workspaceRoot: options.workspaceRoot } : {}),
    ...(options.mcpServers ? { mcpServers: options.mcpServers } : {}),
  });
  await sayOtherWorkers(connection, settings, worker.options.identity, options.notice ?? ((text) => console.error(`livecontext: ${text}`)));
  // The last spans (the worker's shutdown ends open activity spans) are flushed before the process goes.
  const done = worker.run().finally(async () => {
    await tracing?.shutdown().catch(() => undefined);
    await connection.close();
  });
  return {
    worker,
    settings,
    done,
    async stop() {
      if (worker.getState() === 'RUNNING') worker.shutdown();
      await done;
    },
  };
}

/**
 * Says which other workers poll the task queue this worker joins (Temporal's task-queue description):
 * a second `npm start`, or a worker with another environment, would otherwise share the agents' calls
 * without a word. Looking is best effort: a server that cannot describe the queue delays nothing.
 */
async function sayOtherWorkers(connection: NativeConnection, settings: ConnectSettings, ownIdentity: string, notice: (text: string) => void): Promise<void> {
  try {
    const others = (await listPollers(connection, settings.namespace, settings.taskQueue)).filter((p) => p.identity !== ownIdentity);
    const text = otherWorkersNotice(others, settings.taskQueue);
    if (text) notice(text);
  } catch {
    // not knowing is no reason to stop a worker from starting
  }
}
