/** Builds a Worker that hosts agent workflows and runs their model calls and tools. */
import path from 'node:path';
import { NativeConnection, Worker, type WorkerOptions } from '@temporalio/worker';
import {
  ModelRouter,
  ToolRegistry,
  createActivities,
  offlineDemoProvider,
  workspaceTools,
  type ModelProvider,
  type Tool,
} from '../activities';
import { TASK_QUEUE } from '../workflows/messages';

export interface LivecontextWorkerOptions {
  connection: NativeConnection;
  namespace?: string;
  taskQueue?: string;
  /** Your tools, in addition to the built-in workspace tools (unless `builtinTools: false`). */
  tools?: Tool[];
  builtinTools?: boolean;
  /** Model providers by `provider` id; the offline demo provider is always there. */
  models?: ModelProvider[];
  /** Parent folder of the agents' workspaces (default `.livecontext/workspaces`). */
  workspaceRoot?: string;
  /** A prebuilt workflow bundle (from bundleWorkflowCode), to skip bundling at start-up. */
  workflowBundle?: WorkerOptions['workflowBundle'];
  /** Anything else Temporal's Worker accepts (concurrency, identity, sinks, interceptors…). */
  workerOptions?: Partial<WorkerOptions>;
}

export const WORKFLOWS_PATH = require.resolve('../workflows');

export async function createLivecontextWorker(options: LivecontextWorkerOptions): Promise<Worker> {
  const tools = new ToolRegistry([...(options.builtinTools === false ? [] : workspaceTools), ...(options.tools ?? [])]);
  const models = new ModelRouter([offlineDemoProvider, ...(options.models ?? [])]);
  const workspaceRoot = path.resolve(options.workspaceRoot ?? path.join('.livecontext', 'workspaces'));
  return Worker.create({
    connection: options.connection,
    namespace: options.namespace ?? 'default',
    taskQueue: options.taskQueue ?? TASK_QUEUE,
    ...(options.workflowBundle ? { workflowBundle: options.workflowBundle } : { workflowsPath: WORKFLOWS_PATH }),
    activities: createActivities({ models, tools, workspaceRoot }),
    ...options.workerOptions,
  });
}
