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
