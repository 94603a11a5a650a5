/**
 * The client's worker check (AgentClientOptions.workerCheck): before a query, update or wait, make sure a
 * worker polls the agent's task queue, so a call no worker would take fails at once with NoWorkerError
 * instead of hanging. A worker found is trusted for a while, and an agent's task queue remembered.
 */
import type { Client } from '@temporalio/client';
import { type WorkerStatus, describeWorkers } from '../common/task-queue-pollers';
import { TtlCache } from './ttl-cache';
import { expectWorker } from './worker-status';
import { workerServes } from './worker-probe';

/** How long a worker check that found one is trusted. */
const WORKER_CHECK_TTL_MS = 10_000;
/** How long an agent's task queue is remembered (it changes only if a new agent takes the id). */
const AGENT_QUEUE_TTL_MS = 60_000;

export class WorkerCheck {
  private readonly agentQueues = new TtlCache<string>(AGENT_QUEUE_TTL_MS);
  private readonly found = new TtlCache<WorkerStatus>(WORKER_CHECK_TTL_MS);

  constructor(
    private readonly client: Client,
    /** Off: Temporal's own behaviour (a query times out after about 30 s, an update waits for a worker). */
    readonly enabled: boolean,
  ) {}

  /** Whether workers poll `taskQueue`, asked now. */
  status(taskQueue: string): Promise<WorkerStatus> {
    return describeWorkers(this.client, taskQueue);
  }

  /** Whether a live worker serves the agent (worker-probe.ts: workerServes); undefined when the probe could not run. */
  async serves(agentId: string, signal?: AbortSignal): Promise<boolean | undefined> {
    const queue = await this.agentTaskQueue(agentId).catch(() => undefined);
    return queue === undefined ? undefined : workerServes(this.client, queue, agentId, signal);
  }

  /** The task queue an agent runs on (a client with another default may have started it). */
  agentTaskQueue(agentId: string): Promise<string> {
    return this.agentQueues.get(agentId, async () => (await this.client.workflow.getHandle(agentId).describe()).taskQueue);
  }

  /** An agent this client has just started on `taskQueue`: its first call needs no description of it. */
  started(agentId: string, taskQueue: string): void {
    this.agentQueues.set(agentId, taskQueue);
  }

  /**
   * Throws NoWorkerError unless a worker polls the agent's task queue (WorkflowNotFoundError if there is
   * no such agent). A worker found is trusted for WORKER_CHECK_TTL_MS; concurrent checks share one.
   */
  async require(agentId: string): Promise<void> {
    const queue = await this.agentTaskQueue(agentId);
    await this.found.get(queue, () => expectWorker(this.client, queue));
  }

  /** `require`, when the check is on. */
  beforeCall(agentId: string): Promise<void> {
    return this.enabled ? this.require(agentId) : Promise.resolve();
  }

  /** Forgets that a worker was found on `taskQueue`: the next check asks again. */
  forget(taskQueue: string): void {
    this.found.forget(taskQueue);
  }
}
