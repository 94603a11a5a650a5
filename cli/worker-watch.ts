/**
 * While a CLI command waits on an agent (for it to take an input, or for an answer), says on stderr when
 * the wait depends on a worker that is not there, and when one is back: a wait may go on, but never
 * silently. A worker counts as gone once it has not polled for POLLED_WITHIN_MS (see common/task-queue-pollers.ts), and
 * that for two checks in a row: a Temporal server that just restarted knows no pollers until they poll again.
 */
import { setTimeout as sleep } from 'node:timers/promises';
import type { AgentClient } from '../client/agent-client';

export interface WaitWatch {
  agents: AgentClient;
  agentId: string;
  /** What is awaited, for the notices: "the answer to input #3". */
  awaiting: string;
  /** What Ctrl-C would leave behind, for the notices: "Ctrl-C stops waiting; …". */
  leaving: string;
  say(line: string): void;
  /** Also say so when the wait outlasts the first check although a worker seems present (taking an input is quick). */
  slowNotice?: boolean;
  intervalMs?: number;
}

export async function watchWorkerWhile<T>(work: Promise<T>, w: WaitWatch): Promise<T> {
  const done = new AbortController();
  const watching = watch(w, done.signal).catch(() => undefined); // the watch only ever adds notices
  try {
    return await work;
  } finally {
    done.abort();
    await watching;
  }
}

async function watch(w: WaitWatch, signal: AbortSignal): Promise<void> {
  const queue = await w.agents.agentTaskQueue(w.agentId);
  let saidGone = false;
  let saidSlow = !w.slowNotice;
  let missing = 0; // checks in a row that found no worker
  for (;;) {
    await sleep(w.intervalMs ?? 5_000, undefined, { signal });
    const status = await w.agents.workerStatus(queue).catch(() => undefined); // a server unreachable for now: the wait rides it out
    if (signal.aborted) return;
    if (!status) continue;
    missing = status.polling ? 0 : missing + 1;
    const lastPoll = status.lastPolledMsAgo === null ? '' : ` (a worker last polled it ${Math.round(status.lastPolledMsAgo / 1000)} s ago)`;
    if (missing >= 2 && !saidGone) {
      w.say(
        `No worker is polling the task queue ${queue} in namespace ${status.namespace} now${lastPoll}: still waiting for ${w.awaiting}, ` +
          `which comes once one is started (\`livecontext worker\`). ${w.leaving}`,
      );
      saidGone = true;
    } else if (status.polling && saidGone) {
      w.say(`A worker is polling the task queue ${queue} again; still waiting for ${w.awaiting}.`);
      saidGone = false;
    } else if (!saidSlow) {
      w.say(`Still waiting for ${w.awaiting}: its worker may have stopped${lastPoll}. ${w.leaving}`);
    }
    saidSlow = true;
  }
}
