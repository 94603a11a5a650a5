/**
 * Runs a livecontext worker against the configured Temporal server until it is asked to stop.
 * Shared by `livecontext worker`, `livecontext dev` and `npm start`.
 */
import { NativeConnection, type Worker } from '@temporalio/worker';
import type { ModelProvider, Tool } from '../activities/index';
import { type ConnectSettings, connectSettings, unreachableServer } from '../common/connection';
import { createLivecontextWorker } from './create-worker';
import type { McpServersOption } from './mcp-servers';
import type { A2aAgentsOption } from './a2a-agents';
import { installLogging } from '../common/logging';
import { startTracing } from '../common/telemetry';
import { type Poller, listPollers } from '../common/task-queue-pollers';

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
  /** Remote A2A agents offered as tools (see LivecontextWorkerOptions.a2aAgents). */
  a2aAgents?: A2aAgentsOption;
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
    ...(options.a2aAgents ? { a2aAgents: options.a2aAgents } : {}),
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

/**
 * What a starting worker says about the other workers on its task queue, or undefined when there are
 * none: they share its agents' model calls and tools, so a difference in keys or tools between them
 * makes turns fail on one worker and not on another.
 */
export function otherWorkersNotice(others: readonly Poller[], taskQueue: string): string | undefined {
  if (!others.length) return undefined;
  const shown = others.slice(0, 5).map((p) => `${p.identity} (polled ${Math.round(p.lastPolledMsAgo / 1000)} s ago)`);
  const more = others.length > shown.length ? `, and ${others.length - shown.length} more` : '';
  const count = others.length === 1 ? '1 other worker polls' : `${others.length} other workers poll`;
  return (
    `${count} ${taskQueue}: ${shown.join(', ')}${more}. ` +
    "They take this queue's model calls and tool runs too: give every worker of a queue the same API keys and tools " +
    '(a call one worker cannot make is handed to another a few times, then the agent blocks), or use another task queue (LIVECONTEXT_TASK_QUEUE).'
  );
}
