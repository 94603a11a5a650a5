/** Shared helpers for tests on the real dev server started in global-setup. */
import { randomUUID } from 'node:crypto';
import { Client, Connection } from '@temporalio/client';
import { NativeConnection, type Worker } from '@temporalio/worker';
import type { AgentStatus } from '../../agent/index';
import { AgentClient } from '../../client/agent-client';
import { clientInterceptors } from '../../client/closed-channel-guard';
import { livecontextDataConverter } from '../../common/codec/data-converter';
import { listPollers } from '../../common/task-queue-pollers';
import { createLivecontextWorker, type LivecontextWorkerOptions } from '../../worker/create-worker';

export function testAddress(): string {
  const address = process.env.LIVECONTEXT_TEST_ADDRESS;
  if (!address) throw new Error(`${noServer()}: LIVECONTEXT_TEST_ADDRESS is not set.`);
  return address;
}

export function workflowBundle() {
  const codePath = process.env.LIVECONTEXT_TEST_BUNDLE;
  if (!codePath) throw new Error(`${noServer()}: LIVECONTEXT_TEST_BUNDLE is not set.`);
  return { codePath };
}

/** Why there is no dev server: a unit test asked for one, or jest's global setup did not run. */
function noServer(): string {
  return process.env.LIVECONTEXT_TEST_PROJECT === 'unit'
    ? 'This test needs a Temporal server, but unit tests run without one: move it to test/integration (or another integration folder)'
    : 'No Temporal dev server for this test: run it through jest, whose integration project starts one (global setup)';
}

export function uniqueId(prefix: string): string {
  return `${prefix}-${randomUUID().slice(0, 8)}`;
}

export interface TestContext {
  connection: Connection;
  client: Client;
  agents: AgentClient;
  close(): Promise<void>;
}

export async function connectTest(taskQueue: string, namespace = 'default'): Promise<TestContext> {
  const connection = await Connection.connect({ address: testAddress(), interceptors: clientInterceptors() });
  const client = new Client({ connection, namespace, dataConverter: livecontextDataConverter() });
  return { connection, client, agents: new AgentClient(client, taskQueue), close: () => connection.close() };
}

/** Runs an in-process worker on `taskQueue` while `fn` runs. */
export async function withWorker<T>(
  options: Omit<LivecontextWorkerOptions, 'connection'> & { taskQueue: string },
  fn: (worker: Worker) => Promise<T>,
): Promise<T> {
  const connection = await NativeConnection.connect({ address: testAddress() });
  try {
    const worker = await createLivecontextWorker({ workflowBundle: workflowBundle(), ...options, connection });
    return await worker.runUntil(async () => {
      await untilPolled(connection, options.namespace ?? 'default', options.taskQueue);
      return fn(worker);
    });
  } finally {
    await connection.close();
  }
}

/**
 * Until a worker is listed polling `taskQueue` for both kinds of task, as a person waits for "worker
 * ready": a worker just created may not have polled yet on a loaded machine, and a client's worker check
 * would then say, rightly, that none polls. Gives up quietly after 30 s (the test then shows what happens).
 */
async function untilPolled(connection: NativeConnection, namespace: string, taskQueue: string): Promise<void> {
  for (const deadline = Date.now() + 30_000; Date.now() < deadline;) {
    const pollers = await listPollers(connection, namespace, taskQueue).catch(() => []);
    if (pollers.some((p) => p.workflows && p.activities)) return;
    await new Promise((r) => setTimeout(r, 50));
  }
  process.stderr.write(`withWorker: no worker listed polling ${taskQueue} after 30 s; the test goes on\n`);
}

/** Polls `check` until it returns a value other than undefined/false, or fails after `timeoutMs`. */
export async function eventually<T>(check: () => Promise<T | undefined | false> | T | undefined | false, timeoutMs = 60_000, what = 'condition'): Promise<T> {
  const deadline = Date.now() + timeoutMs;
  for (;;) {
    const value = await check();
    if (value !== undefined && value !== false) return value as T;
    if (Date.now() > deadline) throw new Error(`Timed out after ${timeoutMs} ms waiting for ${what}.`);
    await new Promise((r) => setTimeout(r, 100));
  }
}

/** The agent's state once it waits for a person's approval (polled like `eventually`). */
export function waitingForApproval(agents: AgentClient, agentId: string, timeoutMs = 30_000, what = 'the approval request'): Promise<AgentStatus> {
  return eventually(
    async () => {
      const s = await agents.state(agentId);
      return s.blockedOn === 'approval' ? s : undefined;
    },
    timeoutMs,
    what,
  );
}
