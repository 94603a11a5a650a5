/**
 * A server's tool called as an MCP task (the server says the tool supports tasks), and followed to its
 * end: the task id goes into the call's heartbeat details as soon as the server gives it, so when the
 * worker dies mid-call, the next attempt (another worker) follows the same task (mcp-tool's reconcile)
 * instead of calling the tool again. Polled with tasks/get at the server's pollInterval; the result read
 * with tasks/result once the task is over; a call cancelled here (interrupt, timeout) cancels the task.
 */
import type { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { CreateTaskResultSchema } from '@modelcontextprotocol/sdk/experimental/tasks/types.js';
import type { CallToolResultSchema, Task } from '@modelcontextprotocol/sdk/types.js';
import { z } from 'zod';

/** The heartbeat-details key that holds the MCP task a call follows. */
export const MCP_TASK_DETAILS_KEY = 'mcp_task_id';
/** How long the server is asked to keep the task (and its result) for a worker that comes back to it. */
export const MCP_TASK_TTL_MS = 24 * 60 * 60 * 1000;
const MIN_POLL_MS = 200;
const MAX_POLL_MS = 5_000;
const REQUEST_TIMEOUT_MS = 30_000;
const TERMINAL = new Set<Task['status']>(['completed', 'failed', 'cancelled']);

/** See server-connection's AnyResult: the result is read leniently by mcpResultText. */
const AnyResult = z.unknown() as unknown as typeof CallToolResultSchema;

export interface TaskCallOptions {
  signal: AbortSignal;
  meta?: Record<string, unknown>;
  /** Called with the task id once the server made the task (before it is followed). */
  onTask: (taskId: string) => void;
  /** Called with each status the task reports while it runs. */
  onStatus?: (task: Task) => void;
}

/** The task id a previous attempt recorded in its heartbeat details, if any. */
export function taskIdIn(details: unknown): string | undefined {
  const id = (details as Record<string, unknown> | null | undefined)?.[MCP_TASK_DETAILS_KEY];
  return typeof id === 'string' && id.length > 0 ? id : undefined;
}

/** tools/call as a task: the server answers with the task at once; then it is followed to its result. */
export async function callToolAsTask(client: Client, name: string, args: Record<string, unknown>, options: TaskCallOptions): Promise<unknown> {
  const created = await client.request(
    { method: 'tools/call', params: { name, arguments: args, ...(options.meta ? { _meta: options.meta } : {}) } },
    CreateTaskResultSchema,
    { signal: options.signal, timeout: REQUEST_TIMEOUT_MS, task: { ttl: MCP_TASK_TTL_MS } },
  );
  options.onTask(created.task.taskId);
  return followTask(client, created.task.taskId, options);
}

/** Polls the task until it is over and returns its result (tasks/result); cancels it if the call is cancelled. */
export async function followTask(client: Client, taskId: string, options: Omit<TaskCallOptions, 'meta' | 'onTask'>): Promise<unknown> {
  const { signal } = options;
  const cancel = () => void client.experimental.tasks.cancelTask(taskId, { timeout: REQUEST_TIMEOUT_MS }).catch(() => undefined);
  signal.addEventListener('abort', cancel, { once: true });
  try {
    for (;;) {
      const task = await client.experimental.tasks.getTask(taskId, { signal, timeout: REQUEST_TIMEOUT_MS });
      if (TERMINAL.has(task.status)) break;
      options.onStatus?.(task);
      const wait = Math.min(Math.max(task.pollInterval ?? 1000, MIN_POLL_MS), MAX_POLL_MS);
      await new Promise<void>((resolve) => {
        const timer = setTimeout(resolve, wait);
        signal.addEventListener('abort', () => (clearTimeout(timer), resolve()), { once: true });
      });
      signal.throwIfAborted();
    }
    return await client.experimental.tasks.getTaskResult(taskId, AnyResult, { signal, timeout: REQUEST_TIMEOUT_MS });
  } finally {
    signal.removeEventListener('abort', cancel);
  }
}
