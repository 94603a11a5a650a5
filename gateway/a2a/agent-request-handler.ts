/**
 * The A2A methods for one agent, behind the SDK's JSON-RPC transport: every task is one turn of the agent
 * (see task-id.ts), read from the agent each time (task-view.ts), so this handler keeps nothing between
 * requests and a task outlives the gateway and the worker. Streams follow the agent by polling its state
 * and end where A2A streams end: at a final state or at `input-required`.
 */
import type {
  AgentCard,
  CancelTaskRequest,
  DeleteTaskPushNotificationConfigRequest,
  GetExtendedAgentCardRequest,
  GetTaskPushNotificationConfigRequest,
  GetTaskRequest,
  ListTaskPushNotificationConfigsRequest,
  ListTaskPushNotificationConfigsResponse,
  ListTasksRequest,
  ListTasksResponse,
  Message,
  SendMessageRequest,
  StreamResponse,
  SubscribeToTaskRequest,
  Task,
  TaskPushNotificationConfig,
} from '@a2a-js/sdk';
import { TaskState } from '@a2a-js/sdk';
import {
  ExtendedAgentCardNotConfiguredError,
  RequestMalformedError,
  TaskNotCancelableError,
  TaskNotFoundError,
  UnsupportedOperationError,
} from '@a2a-js/sdk/errors';
import type { A2ARequestHandler } from '@a2a-js/sdk/server';
import type { AgentClient } from '../../client/agent-client';
import { NoWorkerError } from '../../client/worker-status';
import { passRefusal } from '../http-errors';
import { answerWait, replyText } from './answer-wait';
import { type TurnRef, taskIdOf, turnOf } from './task-id';
import { TextChunks } from './text-chunks';
import { checkPushConfig, deletePushConfig, listPushConfigs, setPushConfig } from './push-configs';
import { FINAL_STATES, isPause, readTask } from './task-view';

/** How often a stream looks at the agent. */
export const A2A_POLL_MS = 250;
/**
 * How long a task followed (a stream, a blocking SendMessage) waits for the agent's worker to come back
 * when it goes away mid-task (SIGKILLed, restarting): the task outlives the worker, so its stream does too.
 */
export const A2A_NO_WORKER_PATIENCE_MS = 300_000;
/** Who the agent's history names as the sender of A2A input and decisions. */
const SENDER = 'a2a';

export class AgentRequestHandler implements A2ARequestHandler {
  constructor(
    private readonly agents: AgentClient,
    private readonly agentId: string,
    private readonly card: () => Promise<AgentCard>,
    private readonly pollMs = A2A_POLL_MS,
    /** The HTTP request's: aborted when its caller leaves (or the gateway closes), which ends any following. */
    private readonly signal?: AbortSignal,
  ) {}

  getAgentCard(): Promise<AgentCard> {
    return this.card();
  }

  async getAuthenticatedExtendedAgentCard(_params: GetExtendedAgentCardRequest): Promise<AgentCard> {
    throw new ExtendedAgentCardNotConfiguredError('This agent has no extended card: its card says everything.');
  }

  async sendMessage(params: SendMessageRequest): Promise<Message | Task> {
    const push = this.pushOf(params);
    const ref = await this.take(params);
    await push?.(this.agents, ref, SENDER);
    if (params.configuration?.returnImmediately) return readTask(this.agents, ref);
    let last: Task | undefined;
    for await (const task of this.snapshots(ref)) last = task;
    return last!;
  }

  async *sendMessageStream(params: SendMessageRequest): AsyncGenerator<StreamResponse, void, undefined> {
    const push = this.pushOf(params);
    const ref = await this.take(params);
    await push?.(this.agents, ref, SENDER);
    yield* this.follow(ref);
  }

  async *resubscribe(params: SubscribeToTaskRequest): AsyncGenerator<StreamResponse, void, undefined> {
    yield* this.follow(this.ref(params.id));
  }

  async getTask(params: GetTaskRequest): Promise<Task> {
    const task = await readTask(this.agents, this.ref(params.id));
    if (params.historyLength !== undefined) task.history = params.historyLength > 0 ? task.history.slice(-params.historyLength) : [];
    return task;
  }

  /** Cancelling a task interrupts its turn (the agent then waits for new input; the conversation goes on). */
  async cancelTask(params: CancelTaskRequest): Promise<Task> {
    const ref = this.ref(params.id);
    const task = await readTask(this.agents, ref);
    const state = task.status?.state;
    if (state !== undefined && FINAL_STATES.has(state)) throw new TaskNotCancelableError(`Task ${params.id} is over.`);
    if (state === TaskState.TASK_STATE_SUBMITTED)
      throw new TaskNotCancelableError(`Task ${params.id} is queued behind the agent's current turn; cancel that one.`);
    if (task.metadata?.outcome === 'asked')
      throw new TaskNotCancelableError(`Task ${params.id}'s turn is over: it asked a question, which a new message may answer or leave.`);
    await this.agents.interrupt(ref.agentId, SENDER, { inputSeq: ref.inputSeq }).catch(passRefusal('NOT_RUNNING')); // its turn ended meanwhile: the task reads the outcome
    let last = task;
    for await (const t of this.snapshots(ref)) last = t;
    return last;
  }

  async listTasks(_params: ListTasksRequest): Promise<ListTasksResponse> {
    throw new UnsupportedOperationError('Listing tasks is not supported: a task is one turn of the agent; its history lists them (GET /agents/{id}/history).');
  }

  /** A webhook for a task's state changes: kept in the agent, delivered by the worker (push-configs.ts). */
  async createTaskPushNotificationConfig(params: TaskPushNotificationConfig): Promise<TaskPushNotificationConfig> {
    const ref = this.ref(params.taskId);
    await readTask(this.agents, ref); // the task exists
    return setPushConfig(this.agents, ref, params, SENDER);
  }
  async getTaskPushNotificationConfig(params: GetTaskPushNotificationConfigRequest): Promise<TaskPushNotificationConfig> {
    const id = params.id || 'default';
    const found = (await listPushConfigs(this.agents, this.ref(params.taskId))).find((c) => c.id === id);
    if (!found) throw new TaskNotFoundError(`No push notification config ${id} for task ${params.taskId} (a task that is over has none).`);
    return found;
  }
  async listTaskPushNotificationConfigs(params: ListTaskPushNotificationConfigsRequest): Promise<ListTaskPushNotificationConfigsResponse> {
    return { configs: await listPushConfigs(this.agents, this.ref(params.taskId)), nextPageToken: '' };
  }
  async deleteTaskPushNotificationConfig(params: DeleteTaskPushNotificationConfigRequest): Promise<void> {
    await deletePushConfig(this.agents, this.ref(params.taskId), params.id, SENDER);
  }

  /** A message's push notification config (checked before the message is taken), to set for the task it starts or continues. */
  private pushOf(params: SendMessageRequest) {
    const config = params.configuration?.taskPushNotificationConfig;
    return config?.url ? checkPushConfig(config) : undefined;
  }

  /** The turn a task id of this agent names. */
  private ref(taskId: string): TurnRef {
    const ref = turnOf(taskId);
    if (!ref || ref.agentId !== this.agentId) throw new TaskNotFoundError(`No task ${taskId} at agent ${this.agentId}.`);
    return ref;
  }

  /**
   * A message without a task id is the agent's next input (its message id the input's idempotency key,
   * so a client's retry is not a second turn); with one, it answers what that task waits for.
   */
  private async take(params: SendMessageRequest): Promise<TurnRef> {
    const message = params.message;
    if (!message) throw new RequestMalformedError('A message is required.');
    if (message.taskId) {
      const ref = this.ref(message.taskId);
      return answerWait(this.agents, ref, await readTask(this.agents, ref), message, SENDER);
    }
    const data = message.parts.flatMap((p) => (p.content?.$case === 'data' ? [JSON.stringify(p.content.value)] : []));
    const text = [replyText(message), ...data].filter(Boolean).join('\n\n');
    if (!text.trim()) throw new RequestMalformedError('The message has no text or data part.');
    if (!message.messageId) throw new RequestMalformedError('The message needs a messageId.');
    const schema = message.metadata?.responseSchema;
    const sent = await this.agents.send(this.agentId, {
      text,
      sender: SENDER,
      idempotencyKey: `a2a:${message.messageId}`.slice(0, 200),
      ...(schema && typeof schema === 'object' ? { responseSchema: schema } : {}),
    });
    return { agentId: this.agentId, inputSeq: sent.inputSeq };
  }

  /**
   * The task of a turn being followed, read again while its agent has no worker (NoWorkerError), for up to
   * A2A_NO_WORKER_PATIENCE_MS: a worker that was killed mid-task is replaced, and the follower goes on.
   */
  private async readFollowed(ref: TurnRef): Promise<Task> {
    const since = Date.now();
    for (;;) {
      try {
        return await readTask(this.agents, ref);
      } catch (err) {
        if (!(err instanceof NoWorkerError) || Date.now() - since > A2A_NO_WORKER_PATIENCE_MS || this.signal?.aborted) throw err;
        await new Promise((r) => setTimeout(r, this.pollMs));
      }
    }
  }

  /** The model's text while the turn works; a worker gone meanwhile is waited for by the next read (readFollowed). */
  private async *textDuring(text: TextChunks, signal: AbortSignal): AsyncGenerator<StreamResponse> {
    try {
      yield* text.during(this.pollMs, signal);
    } catch (err) {
      if (!(err instanceof NoWorkerError)) throw err;
    }
  }

  /** The task as it changes, until it pauses (a final state or `input-required`). */
  private async *snapshots(ref: TurnRef): AsyncGenerator<Task> {
    let seen = '';
    for (let first = true; ; first = false) {
      if (!first) await new Promise((r) => setTimeout(r, this.pollMs));
      if (!first && this.signal?.aborted) return; // no one is waiting for the answer (a CancelTask whose gateway closed)
      const task = first ? await readTask(this.agents, ref) : await this.readFollowed(ref);
      const mark = JSON.stringify([task.status?.state, task.status?.message?.parts, task.artifacts.length]);
      if (mark !== seen) {
        seen = mark;
        yield task;
      }
      if (isPause(task.status?.state)) return;
    }
  }

  /**
   * A2A stream events of a task: the task first, then its status changes and artifacts as they come, and
   * while the turn works the model's text as it streams, as artifact chunks (text-chunks.ts).
   */
  private async *follow(ref: TurnRef): AsyncGenerator<StreamResponse> {
    const text = new TextChunks(this.agents, ref);
    const stop = new AbortController();
    let sentArtifacts = 0;
    let seen = '';
    try {
      for (let first = true; ; first = false) {
        const task = first ? await readTask(this.agents, ref) : await this.readFollowed(ref);
        const state = task.status?.state;
        const mark = JSON.stringify([state, task.status?.message?.parts, task.artifacts.length]);
        if (first) {
          sentArtifacts = task.artifacts.length;
          yield { payload: { $case: 'task', value: task } };
        } else if (mark !== seen) {
          if (isPause(state)) yield* text.flush();
          for (const artifact of task.artifacts.slice(sentArtifacts)) {
            yield {
              payload: {
                $case: 'artifactUpdate',
                value: { taskId: task.id, contextId: task.contextId, artifact, append: false, lastChunk: true, metadata: undefined },
              },
            };
          }
          sentArtifacts = task.artifacts.length;
          yield {
            payload: { $case: 'statusUpdate', value: { taskId: taskIdOf(ref), contextId: task.contextId, status: task.status, metadata: task.metadata } },
          };
        }
        seen = mark;
        if (isPause(state)) return;
        if (state === TaskState.TASK_STATE_WORKING) yield* this.textDuring(text, stop.signal);
        else await new Promise((r) => setTimeout(r, this.pollMs));
      }
    } finally {
      stop.abort();
    }
  }
}
