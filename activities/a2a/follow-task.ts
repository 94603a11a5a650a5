/**
 * A message sent to a remote A2A agent and its task followed until it pauses: SendMessage with
 * `returnImmediately` (the task id comes back at once, and is reported through `onTask` — the tool puts it
 * in its heartbeat details), then GetTask, at a growing interval, until the task is over or waits for
 * input. A worker that died mid-call leaves the task id behind, and the next attempt calls `followTask`
 * instead of sending again. A remote that is briefly unreachable while followed is asked again (its task
 * goes on without us); an A2A error (no such task…) ends the call. A call cancelled here (interrupt,
 * the tool's timeout) cancels the remote task; one stopped because its worker shuts down does not (the
 * next attempt follows the task).
 */
import type { Message, SendMessageRequest, Task } from '@a2a-js/sdk';
import type { Client } from '@a2a-js/sdk/client';
import { A2AError } from '@a2a-js/sdk/errors';
import { isPaused, isTask } from './task-result';

const FIRST_POLL_MS = 250;
const MAX_POLL_MS = 5_000;

export interface FollowOptions {
  signal: AbortSignal;
  /** Called with the task as soon as its id is known and at each poll. */
  onTask: (task: Task) => void;
  /** Called when a poll failed and will be tried again (the remote restarting…). */
  onPollError?: (err: unknown) => void;
  /** Whether an abort of `signal` should cancel the remote task (default: yes). */
  cancelsRemote?: () => boolean;
}

/** Sends `request` (its message id is the call's idempotency key) and follows the task it starts. */
export async function sendAndFollow(client: Client, request: SendMessageRequest, options: FollowOptions): Promise<Task | Message> {
  const first = await client.sendMessage(request, { signal: options.signal });
  if (!isTask(first)) return first;
  options.onTask(first);
  if (isPaused(first.status?.state)) return first;
  return followTask(client, first.id, options);
}

/** Polls GetTask until the task pauses (over, or waiting for input); cancels it if the call is cancelled. */
export async function followTask(client: Client, taskId: string, options: FollowOptions): Promise<Task> {
  const { signal } = options;
  const cancel = () => {
    if (options.cancelsRemote?.() === false) return;
    void client.cancelTask({ id: taskId, tenant: '', metadata: undefined }).catch(() => undefined);
  };
  signal.addEventListener('abort', cancel, { once: true });
  try {
    for (let wait = FIRST_POLL_MS; ; wait = Math.min(wait * 1.5, MAX_POLL_MS)) {
      signal.throwIfAborted();
      try {
        const task = await client.getTask({ id: taskId, tenant: '' }, { signal });
        options.onTask(task);
        if (isPaused(task.status?.state)) return task;
      } catch (err) {
        if (err instanceof A2AError || signal.aborted) throw err;
        options.onPollError?.(err); // unreachable for now: its task goes on; ask again
      }
      await new Promise<void>((resolve) => {
        const timer = setTimeout(resolve, wait);
        signal.addEventListener('abort', () => (clearTimeout(timer), resolve()), { once: true });
      });
    }
  } finally {
    signal.removeEventListener('abort', cancel);
  }
}
