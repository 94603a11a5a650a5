/**
 * Runs a livecontext worker against the configured Temporal server until it is asked to stop.
 * Shared by `livecontext worker`, `livecontext dev` and `npm start`.
 */
import { NativeConnection, type Worker } from '@temporalio/worker';
import type { ModelProvider, Tool } from '../activities';
import { type ConnectSettings, connectSettings } from '../common/connection';
import { createLivecontextWorker } from './create-worker';
import type { McpServersOption } from './mcp-servers';
import { installLogging } from '../common/logging';

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
  const connection = await NativeConnection.connect(settings.connectionOptions);
  const worker = await createLivecontextWorker({
    ...(options.progress ? { progress: options.progress } : {}),
    connection,
    namespace: settings.namespace,
    taskQueue: settings.taskQueue,
    ...(options.tools ? { tools: options.tools } : {}),
    ...(options.models ? { models: options.models } : {}),
    ...(options.workspaceRoot ? { workspaceRoot: options.workspaceRoot } : {}),
    ...(options.mcpServers ? { mcpServers: options.mcpServers } : {}),
  });
  const done = worker.run().finally(() => connection.close());
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
