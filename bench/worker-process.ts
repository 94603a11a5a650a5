/**
 * A benchmark worker in a process of its own, so the recovery benchmark can SIGKILL it like a crashed
 * machine and time a real restart. Arguments: side (livecontext|baseline), server address, task queue,
 * prebuilt workflow bundle path, workspace root. Prints READY once polling. The scale benchmark sets
 * BENCH_WORKER_MAX_CACHED_WORKFLOWS (Temporal's workflow cache size, the same on both sides); the lifetime
 * benchmark runs it with --expose-gc and BENCH_WORKER_GC_ON_STDIN=1 (a line "gc" on stdin collects garbage).
 */
import { DefaultLogger, NativeConnection, Runtime, Worker } from '@temporalio/worker';
import { createLivecontextWorker } from '../worker/create-worker';
import * as baselineActivities from './baseline/activities';
import { slowTool, slowToolModels } from './slow-tool';
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
      ? await createLivecontextWorker({
          connection,
          taskQueue,
          tools: [echoTool, slowTool],
          models: [benchModels(), slowToolModels()],
          workspaceRoot,
          workflowBundle,
          workerOptions,
        })
      : await Worker.create({ connection, taskQueue, workflowBundle, activities: baselineActivities, ...workerOptions });
  const running = worker.run();
  // The lifetime benchmark reads RSS after a full collection of this (main) thread's heap: less noise.
  const gc = (globalThis as { gc?: () => void }).gc;
  if (process.env.BENCH_WORKER_GC_ON_STDIN === '1' && gc) {
    process.stdin.on('data', (d) => {
      if (!String(d).includes('gc')) return;
      gc();
      gc();
      process.stdout.write('GC DONE\n');
    });
  }
  process.stdout.write('READY\n');
  await running;
}

main().catch((err) => {
  console.error(err);
  process.exit(1);
});
