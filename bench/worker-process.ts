/**
 * A benchmark worker in a process of its own, so the recovery benchmark can SIGKILL it like a crashed
 * machine and time a real restart. Arguments: side (livecontext|baseline), server address, task queue,
 * prebuilt workflow bundle path, workspace root. Prints READY once polling. The scale benchmark sets
 * BENCH_WORKER_MAX_CACHED_WORKFLOWS (Temporal's workflow cache size, the same on both sides).
 */
import { DefaultLogger, NativeConnection, Runtime, Worker } from '@temporalio/worker';
import { createLivecontextWorker } from '../worker/create-worker';
import * as baselineActivities from './baseline/activities';
import { benchModels, echoTool } from './support';

async function main(): Promise<void> {
  const [side, address, taskQueue, codePath, workspaceRoot] = process.argv.slice(2);
  Runtime.install({ logger: new DefaultLogger('WARN') });
  const connection = await NativeConnection.connect({ address });
  const workflowBundle = { codePath };
  const cacheSize = process.env.BENCH_WORKER_MAX_CACHED_WORKFLOWS;
  const workerOptions = cacheSize ? { maxCachedWorkflows: Number(cacheSize) } : {};
  const worker =
    side === 'livecontext'
      ? await createLivecontextWorker({ connection, taskQueue, tools: [echoTool], models: [benchModels()], workspaceRoot, workflowBundle, workerOptions })
      : await Worker.create({ connection, taskQueue, workflowBundle, activities: baselineActivities, ...workerOptions });
  const running = worker.run();
  process.stdout.write('READY\n');
  await running;
}

main().catch((err) => {
  console.error(err);
  process.exit(1);
});
