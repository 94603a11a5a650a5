/**
 * How the client sends queries and updates to an agent: the worker check first; queries asked again while
 * a run has just started or its worker is busy; updates sent again, under the same id, while Temporal
 * refuses them unaccepted; and only a few updates that change an agent in flight at once per agent.
 */
import { randomUUID } from 'node:crypto';
import { setTimeout as sleep } from 'node:timers/promises';
import type { Client, WorkflowHandle } from '@temporalio/client';
import { POLLED_WITHIN_MS } from '../common/task-queue-pollers';
import type { agentWorkflow } from '../workflows/index';
import { KeyedLimiter } from './keyed-limiter';
import { type Resend, errorText, grpcCode, refusedUnaccepted, retryWhile } from './retry';
import type { WorkerCheck } from './worker-check';
import { NoWorkerError } from './worker-status';

/** A query gets this long for an answer when workers are checked: replaying a run takes a worker far less. */
export const QUERY_ANSWER_MS = 10_000;
/** A query without an answer after this long has the client probe whether a worker takes tasks (worker-probe.ts). */
export const QUICK_ANSWER_MS = 800;
/**
 * When the probe cannot run (a client allowed to query but not to start workflows): a worker that polled
 * this recently may be alive and busy, so a query it has not answered yet is waited for; past this, the
 * queue counts as unpolled (see common/task-queue-pollers.ts).
 */
const BUSY_WORKER_POLLED_MS = POLLED_WITHIN_MS;
/** How long a query to a busy worker (one that still takes tasks) is asked again before its error is passed on. */
const BUSY_QUERY_PATIENCE_MS = 300_000;

type Settled<T> = { ok: true; value: T } | { ok: false; err: unknown };
const settle = <T>(p: Promise<T>): Promise<Settled<T>> =>
  p.then(
    (value) => ({ ok: true as const, value }),
    (err: unknown) => ({ ok: false as const, err }),
  );
const seconds = (ms: number) => `${(ms / 1000).toFixed(1)} s`;

export class AgentCalls {
  private readonly changes: KeyedLimiter;

  constructor(
    private readonly client: Client,
    private readonly workers: WorkerCheck,
    /** AgentClientOptions.maxUpdatesInFlight. */
    maxUpdatesInFlight: number,
  ) {
    this.changes = new KeyedLimiter(maxUpdatesInFlight);
  }

  handle(agentId: string): WorkflowHandle<typeof agentWorkflow> {
    return this.client.workflow.getHandle<typeof agentWorkflow>(agentId);
  }

  /**
   * Queries retried briefly while a run has just started (continue-as-new, reset) and has no workflow
   * task yet: a moment in which the agent exists but cannot answer. With the worker check, a query
   * without an answer in QUICK_ANSWER_MS has the client probe the queue (worker-probe.ts): when no worker
   * takes the probe's task within a second (a few more when one worked on the agent just before) and none
   * holds the agent's own workflow task, it fails with NoWorkerError (its worker was killed a moment ago,
   * and Temporal still lists its pollers); when one does, the worker is alive and busy (a long workflow
   * task, a long replay) and the query is waited for, asked again every QUERY_ANSWER_MS for up to
   * BUSY_QUERY_PATIENCE_MS.
   */
  async query<T>(agentId: string, run: () => Promise<T>): Promise<T> {
    const justStarted = { patienceMs: 5_000, firstDelayMs: 100, maxDelayMs: 100 };
    const again = (err: unknown) => (/not scheduled yet|Workflow task is not scheduled/i.test(errorText(err)) ? justStarted : undefined);
    if (!this.workers.enabled) return retryWhile(run, again);
    await this.workers.require(agentId);
    const firstAsked = Date.now();
    for (let attempt = 0; ; attempt++) {
      const deadline = Date.now() + QUERY_ANSWER_MS;
      const abandon = new AbortController();
      const answer = settle(
        this.client.connection.withAbortSignal(abandon.signal, () => retryWhile(() => this.client.connection.withDeadline(deadline, run), again)),
      );
      // The first time, a worker that takes no task is found while the query still waits.
      let settled = attempt === 0 ? await Promise.race([answer, sleep(QUICK_ANSWER_MS, undefined, { ref: false })]) : await answer;
      if (!settled) {
        const probe = new AbortController();
        const taken = await Promise.race([answer, this.workers.serves(agentId, probe.signal)]);
        probe.abort();
        if (taken === false) {
          abandon.abort();
          throw await this.noWorker(agentId, firstAsked);
        }
        settled = typeof taken === 'object' ? taken : await answer;
      }
      if (settled.ok) return settled.value;
      const err = settled.err;
      // Our own deadline shows as CANCELLED ("Call cancelled"); the server's as DEADLINE_EXCEEDED. Nothing else
      // cancels this call here (`abandon` only before a throw), and the clock is not compared with `deadline`:
      // its timer can fire a few ms early (Node's timers count from the event loop's cached time).
      const ownDeadline = grpcCode(err) === 1;
      if (!unanswered(err) && !ownDeadline) throw err;
      const queue = await this.workers.agentTaskQueue(agentId);
      this.workers.forget(queue);
      const taken = await this.workers.serves(agentId);
      if (taken === false) throw await this.noWorker(agentId, firstAsked);
      if (taken === undefined) {
        const status = await this.workers.status(queue);
        const busy = status.polling && status.lastPolledMsAgo !== null && status.lastPolledMsAgo < BUSY_WORKER_POLLED_MS;
        if (!busy) throw new NoWorkerError(status, `Agent "${agentId}" did not answer a query within ${seconds(Date.now() - firstAsked)}`);
      }
      if (Date.now() - firstAsked > BUSY_QUERY_PATIENCE_MS) throw err;
    }
  }

  private async noWorker(agentId: string, firstAsked: number): Promise<NoWorkerError> {
    const queue = await this.workers.agentTaskQueue(agentId);
    this.workers.forget(queue);
    const status = await this.workers.status(queue);
    return new NoWorkerError(
      status,
      `Agent "${agentId}" did not answer a query within ${seconds(Date.now() - firstAsked)}, and no worker took a task from its task queue`,
    );
  }

  /**
   * An update that changes the agent: sent only when refused unaccepted, and a few at a time per agent.
   * `holdAtMostMs`: for an update waited for to its completion, how long it counts among the few (see KeyedLimiter).
   */
  async change<T>(agentId: string, run: (updateId: string) => Promise<T>, holdAtMostMs?: number): Promise<T> {
    await this.workers.beforeCall(agentId);
    return this.changes.run(agentId, () => this.update(run), holdAtMostMs);
  }

  /**
   * Sends an update, again and again (with backoff and jitter) while Temporal refuses it without the
   * agent accepting it — overload, a burst over the 10 updates a workflow may have in flight, a failing
   * workflow task: see `refusedUnaccepted` for why each is safe. Every attempt carries the same update
   * id, so the server recognises a repeat of an update it knows rather than taking it twice. Updates
   * that change nothing (waits) pass `repeatIdempotent`, which also rides out an unreachable server.
   */
  update<T>(run: (updateId: string) => Promise<T>, retryable: (err: unknown) => Resend | undefined = refusedUnaccepted): Promise<T> {
    let updateId = randomUUID();
    return retryWhile(
      () => run(updateId),
      (err) => {
        const resend = retryable(err);
        if (resend?.freshId) updateId = randomUUID();
        return resend?.backoff;
      },
    );
  }
}

/** A query no worker took: it timed out, or the server saw no poller. */
function unanswered(err: unknown): boolean {
  return grpcCode(err) === 4 || /no poller seen|query timed out before a worker could process it|deadline exceeded/i.test(errorText(err));
}
