/**
 * Asks a worker which model providers it can call, through workerInfoWorkflow (workflows/worker-info-
 * workflow.ts): a short run that answers from the worker that takes it — provider ids and what is
 * missing, never a key. One workflow id per task queue, so asks at the same moment share a run and the
 * Web UI shows one id; each run may last 10 s, and the client waits at most `waitMs` for it.
 */
import type { Client } from '@temporalio/client';
import type * as workflows from '../workflows/index';
import type { WorkerInfo, workerInfoWorkflow } from '../workflows/worker-info-workflow';

export type { WorkerInfo };

/** Starts the queue's workerInfoWorkflow run, or joins the one running (worker-probe.ts starts it too). */
export function startWorkerInfo(client: Client, taskQueue: string, replaceRunning = false) {
  return client.workflow.start<typeof workerInfoWorkflow>('workerInfoWorkflow' satisfies keyof typeof workflows, {
    workflowId: `livecontext-worker-info-${taskQueue}`,
    taskQueue,
    // replaceRunning: a run an earlier probe left (worker-probe.ts) is ended and a new one started.
    workflowIdConflictPolicy: replaceRunning ? 'TERMINATE_EXISTING' : 'USE_EXISTING',
    workflowExecutionTimeout: '10 seconds',
    staticSummary: 'livecontext: which model providers a worker can call',
  });
}

export async function askWorkerInfo(client: Client, taskQueue: string, waitMs = 5_000): Promise<WorkerInfo> {
  const handle = await startWorkerInfo(client, taskQueue);
  let timer: NodeJS.Timeout | undefined;
  const late = new Promise<never>((_, reject) => {
    timer = setTimeout(
      () =>
        reject(
          new Error(`No worker of task queue ${taskQueue} said within ${waitMs / 1000} s which model providers it has (an older livecontext worker cannot).`),
        ),
      waitMs,
    );
  });
  try {
    return await Promise.race([handle.result(), late]);
  } finally {
    clearTimeout(timer);
  }
}
