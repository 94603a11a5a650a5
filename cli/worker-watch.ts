/**
 * While a CLI command waits on an agent (for it to take an input, or for an answer), says on stderr when
 * the wait depends on a worker that is not there, and when one is back: a wait may go on, but never
 * silently. A worker counts as gone when no worker took the probe's task (client/worker-probe.ts) and none
 * holds the agent's own workflow task — known within about two seconds, although Temporal lists a killed
 * worker's pollers for a minute more — or once none has polled for POLLED_WITHIN_MS (common/task-queue-pollers.ts)
 * for two checks in a row: a Temporal server that just restarted knows no pollers until they poll again.
 * The wait itself goes on either way: an input Temporal holds is taken when a worker comes, so nothing is
 * failed early that a person would then send twice.
 */
import { setTimeout as sleep } from 'node:timers/promises';
import type { AgentClient } from '../client/agent-client';
import { workerServes } from '../client/worker-probe';

/**
 * When a wait for the agent to take an input (quick when a worker is there) is first looked at and probed:
 * a killed worker is said within about three seconds.
 */
const TAKING_FIRST_LOOK_MS = 2_000;
/** A wait for an answer (a turn may take long) is first probed this late, then every ANSWER_PROBE_EVERY_MS: each probe is a short workflow run. */
const ANSWER_FIRST_PROBE_MS = 10_000;
const ANSWER_PROBE_EVERY_MS = 30_000;
/** A wait for the agent to take an input is probed at each look (a worker holding the agent's task for a moment counts as alive). */
const TAKING_PROBE_EVERY_MS = 0;
/** Once the probe found no worker, how often it looks for one again. */
const REPROBE_GONE_MS = 10_000;

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
  /** Look only while this holds (a chat watches while its agent works); the first probe then comes as if the wait began. */
  onlyWhile?: () => boolean;
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
  let probedGone = false; // the probe (not the poller list) found no worker
  const started = Date.now();
  const probeEvery = w.slowNotice ? TAKING_PROBE_EVERY_MS : ANSWER_PROBE_EVERY_MS;
  const firstProbeAfter = (since: number) => (w.slowNotice ? Number.NEGATIVE_INFINITY : since + ANSWER_FIRST_PROBE_MS - probeEvery);
  let lastProbe = firstProbeAfter(started);
  let idle = false;
  for (let look = 0; ; look++) {
    await sleep(look === 0 && w.slowNotice ? TAKING_FIRST_LOOK_MS : (w.intervalMs ?? 5_000), undefined, { signal });
    if (w.onlyWhile && !w.onlyWhile()) {
      idle = true;
      continue;
    }
    if (idle) {
      // A new wait begins (the agent rested meanwhile, so a worker took its tasks): what was said belonged to the one before.
      idle = false;
      missing = 0;
      lastProbe = firstProbeAfter(Date.now());
      saidGone = probedGone = false;
      continue;
    }
    const status = await w.agents.workerStatus(queue).catch(() => undefined); // a server unreachable for now: the wait rides it out
    if (signal.aborted) return;
    if (!status) continue;
    missing = status.polling ? 0 : missing + 1;
    const lastPoll = status.lastPolledMsAgo === null ? '' : ` (a worker last polled it ${Math.round(status.lastPolledMsAgo / 1000)} s ago)`;
    // Listed as polling: a live worker, or one killed less than a minute ago. The probe tells them apart.
    let takes: boolean | undefined;
    if (status.polling && Date.now() - lastProbe >= (probedGone ? REPROBE_GONE_MS : probeEvery)) {
      lastProbe = Date.now();
      takes = await workerServes(w.agents.client, queue, w.agentId);
      if (signal.aborted) return;
    }
    if (takes === false && !saidGone) {
      w.say(
        `No worker takes tasks from the task queue ${queue} in namespace ${status.namespace} now${lastPoll}: still waiting for ${w.awaiting}, ` +
          `which comes once one is started (\`livecontext worker\`). ${w.leaving}`,
      );
      saidGone = probedGone = true;
    } else if (missing >= 2 && !saidGone) {
      w.say(
        `No worker is polling the task queue ${queue} in namespace ${status.namespace} now${lastPoll}: still waiting for ${w.awaiting}, ` +
          `which comes once one is started (\`livecontext worker\`). ${w.leaving}`,
      );
      saidGone = true;
    } else if (saidGone && (probedGone ? takes === true : status.polling)) {
      w.say(`A worker is ${probedGone ? 'taking tasks from' : 'polling'} the task queue ${queue} again; still waiting for ${w.awaiting}.`);
      saidGone = probedGone = false;
    } else if (!saidSlow && look > 0) {
      w.say(`Still waiting for ${w.awaiting}: its worker may have stopped${lastPoll}. ${w.leaving}`);
    }
    if (look > 0) saidSlow = true;
  }
}
