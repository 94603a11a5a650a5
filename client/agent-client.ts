/**
 * AgentClient: the typed way for programs to start agents, feed them and read them.
 */
import { randomUUID } from 'node:crypto';
import { Client, WorkflowIdReusePolicy, type WorkflowHandle, type WorkflowHandleWithFirstExecutionRunId, WorkflowUpdateStage } from '@temporalio/client';
import { type Duration, TypedSearchAttributes } from '@temporalio/common';
import type { z } from 'zod';
import type { createActivities } from '../activities/index';
import type { PartialOutput } from '../activities/call-model';
import {
  type AgentConfig,
  type AgentError,
  type AgentInput,
  type AgentSnapshot,
  type ConfigChange,
  type HistoryEntry,
  InputRejectedError,
  type ModelOutputEntry,
  checkAgentId,
  NewAgentConfig,
  type TurnOutcome,
  readSnapshot,
} from '../agent/index';
import type { agentWorkflow } from '../workflows/index';
import {
  type AgentStatus,
  type AgentWorkflowInput,
  type EntriesPage,
  type EntriesRequest,
  TASK_QUEUE,
  WORKFLOW_TYPE,
  MODEL_ATTRIBUTE,
  PROVIDER_ATTRIBUTE,
  RUN_STATE_ATTRIBUTE,
  type ToolDecision,
  decideToolCallUpdate,
  resetUpdate,
  configureUpdate,
  entriesQuery,
  inputSignal,
  retrySignal,
  interruptUpdate,
  sendInputUpdate,
  snapshotQuery,
  stateQuery,
  stopSignal,
  type NotebookWrite,
  type NotebookWriteResult,
  updateNotebookUpdate,
  waitForAnswerUpdate,
  askUpdate,
  type AskReceipt,
  type AskRequest,
  type TurnReceipt,
} from '../workflows/messages';
import { decodePayloadAt } from './decode-payload';
import { refuseOversizedInline } from './input-size';
import { KeyedLimiter } from './keyed-limiter';
import { type Resend, errorText, grpcCode, refusedUnaccepted, repeatIdempotent, retryWhile } from './retry';
import { TtlCache } from './ttl-cache';
import { refuseUnsafePatterns } from './schema-patterns';
import { type TypedAskOptions, type TypedOutcome, responseSchemaFor, typedOutcome } from './typed-answer';
import { AgentSchedules } from './agent-schedules';
import { askWorkerInfo } from './worker-info';
import { NoWorkerError, expectWorker } from './worker-status';
import { POLLED_WITHIN_MS, type WorkerStatus, describeWorkers } from '../common/task-queue-pollers';
import { sharedStreamReader } from '../common/stream-channel/channel-reader';
import { LISTED_RUNNING, listedRunStateWord, runStateWord } from './state-view';

export interface AgentSummary {
  agentId: string;
  status: string;
  startTime: string;
  runState: string | null;
  model: string | null;
  provider: string | null;
  /**
   * The run state in the words every view uses (client/state-view.ts): from `runState` while it runs,
   * else how the workflow ended; for a running agent without the search attribute, from its state query.
   */
  stateWord: string;
}

/** Running agents without the run-state search attribute whose state a list asks for (the rest read `running`). */
const LIST_STATE_QUERIES = 20;
/** How long a list waits for such an agent's answer (an agent without a worker does not answer). */
const LIST_STATE_QUERY_MS = 3_000;

export interface StartAgentOptions extends AgentConfig {
  systemInstruction?: string;
}

/** Trade-offs a client may choose; the defaults keep history linear and agents findable. */
export interface AgentClientOptions {
  /**
   * Start agents with the LivecontextRunState/Model/Provider search attributes (default true): they
   * make agents findable, at the cost of a visibility update at each turn's start and end.
   */
  searchAttributes?: boolean;
  /**
   * Have `waitForAnswer` return the answer inline (default false): one query fewer per turn, but a
   * second copy of every answer in history.
   */
  answersInline?: boolean;
  /**
   * Temporal's workflow task timeout for agents this client starts (default: Temporal's 10 s). A worker
   * that picks up a run it has not cached replays the run's history within one workflow task; raise
   * this if your workers are slow and your agents' runs long.
   */
  workflowTaskTimeout?: Duration;
  /**
   * Updates that change an agent (send, configure, approve/deny, reset) this client has in flight at
   * once per agent (default 5); more wait their turn here. Temporal refuses more than 10 unfinished
   * updates per workflow (waits for answers count too), and a crowd of refused callers retrying slows
   * everyone down.
   */
  maxUpdatesInFlight?: number;
  /**
   * Before queries, updates and waits, make sure a worker polls the agent's task queue, and fail at once
   * with NoWorkerError if none does (default true); queries get QUERY_ANSWER_MS for an answer. Without
   * it, Temporal's own behaviour: a query times out after about 30 s, an update waits for a worker.
   * Costs two task-queue descriptions and one of the agent at most every 10 s per agent.
   */
  workerCheck?: boolean;
}

/** How long a worker check that found one is trusted. */
const WORKER_CHECK_TTL_MS = 10_000;
/** How long an agent's task queue is remembered (it changes only if a new agent takes the id). */
const AGENT_QUEUE_TTL_MS = 60_000;
/** A query gets this long for an answer when workers are checked: replaying a run takes a worker far less. */
export const QUERY_ANSWER_MS = 10_000;
/**
 * A worker that polled this recently may be alive and busy (a saturated worker pauses its polls), so a
 * query it has not answered yet is waited for; past this, the queue counts as unpolled (see common/task-queue-pollers.ts).
 */
const BUSY_WORKER_POLLED_MS = POLLED_WITHIN_MS;
/** How long a query to a busy worker (one that still polls) is asked again before its error is passed on. */
const BUSY_QUERY_PATIENCE_MS = 300_000;

export class AgentClient {
  private readonly changes: KeyedLimiter;
  private readonly agentQueues = new TtlCache<string>(AGENT_QUEUE_TTL_MS);
  private readonly workerChecks = new TtlCache<WorkerStatus>(WORKER_CHECK_TTL_MS);

  constructor(
    readonly client: Client,
    readonly taskQueue: string = TASK_QUEUE,
    readonly options: AgentClientOptions = {},
  ) {
    this.changes = new KeyedLimiter(options.maxUpdatesInFlight ?? 5);
  }

  /** Schedules that send agents input at set times (Temporal Schedules; see agent-schedules.ts). */
  get schedules(): AgentSchedules {
    return new AgentSchedules(this.client, this.taskQueue);
  }

  handle(agentId: string): WorkflowHandle<typeof agentWorkflow> {
    return this.client.workflow.getHandle<typeof agentWorkflow>(agentId);
  }

  /** Starts a new agent; fails with WorkflowExecutionAlreadyStartedError if one with this id is running. */
  async start(agentId: string, options: StartAgentOptions): Promise<WorkflowHandleWithFirstExecutionRunId<typeof agentWorkflow>> {
    checkAgentId(agentId); // first: every way to a new agent comes here or to restore (CLI, chat, gateway)
    const { systemInstruction, ...raw } = options;
    // Refused here, with the reason, rather than as a run that fails at once.
    const parsed = NewAgentConfig.safeParse(raw);
    if (!parsed.success) {
      throw new InputRejectedError('BAD_CONFIG', parsed.error.issues.map((i) => `${i.path.join('.') || 'config'}: ${i.message}`).join('; '));
    }
    const config = parsed.data;
    const input: AgentWorkflowInput = systemInstruction ? { config, systemInstruction } : { config };
    return this.startWith(agentId, input);
  }

  /**
   * Starts an agent from a snapshot (import). The snapshot is checked first (throws SnapshotError naming
   * what is inconsistent); its tool-call approvals are asked again, not taken as given.
   */
  async restore(agentId: string, snapshot: AgentSnapshot): Promise<WorkflowHandleWithFirstExecutionRunId<typeof agentWorkflow>> {
    checkAgentId(agentId);
    return this.startWith(agentId, { snapshot: readSnapshot(snapshot), imported: true });
  }

  private async startWith(agentId: string, input: AgentWorkflowInput) {
    const model = 'snapshot' in input ? input.snapshot.config.model : input.config.model;
    const options = {
      workflowId: agentId,
      taskQueue: this.taskQueue,
      args: [input] as [AgentWorkflowInput],
      workflowIdReusePolicy: WorkflowIdReusePolicy.ALLOW_DUPLICATE,
      staticSummary: `livecontext agent (${model})`,
      ...(this.options.workflowTaskTimeout ? { workflowTaskTimeout: this.options.workflowTaskTimeout } : {}),
    };
    if (this.options.searchAttributes === false) return this.client.workflow.start<typeof agentWorkflow>(WORKFLOW_TYPE, options);
    try {
      return await this.client.workflow.start<typeof agentWorkflow>(WORKFLOW_TYPE, {
        ...options,
        typedSearchAttributes: new TypedSearchAttributes([
          { key: RUN_STATE_ATTRIBUTE, value: 'Working' },
          { key: MODEL_ATTRIBUTE, value: model },
          { key: PROVIDER_ATTRIBUTE, value: model.split(':')[0] },
        ]),
      });
    } catch (err) {
      // A namespace without the livecontext search attributes still runs agents, just less findable.
      if (!/search attribute/i.test(errorText(err))) throw err;
      return this.client.workflow.start<typeof agentWorkflow>(WORKFLOW_TYPE, options);
    }
  }

  /**
   * Agents in this namespace (running ones by default), newest first, through Temporal visibility.
   * Run state, model and provider come from the search attributes when the namespace has them.
   */
  async list(options: { all?: boolean; limit?: number } = {}): Promise<AgentSummary[]> {
    const query = `WorkflowType = '${WORKFLOW_TYPE}'${options.all ? '' : " AND ExecutionStatus = 'Running'"}`;
    const out: AgentSummary[] = [];
    for await (const wf of this.client.workflow.list({ query })) {
      const sa = wf.typedSearchAttributes;
      out.push({
        agentId: wf.workflowId,
        status: wf.status.name,
        startTime: wf.startTime.toISOString(),
        runState: sa.get(RUN_STATE_ATTRIBUTE) ?? null,
        model: sa.get(MODEL_ATTRIBUTE) ?? null,
        provider: sa.get(PROVIDER_ATTRIBUTE) ?? null,
        stateWord: listedRunStateWord(sa.get(RUN_STATE_ATTRIBUTE) ?? null, wf.status.name),
      });
      if (out.length >= (options.limit ?? 1000)) break;
    }
    await this.unlistedStates(out);
    return out;
  }

  /**
   * Agents started without the search attributes (sub-agents are child workflows started without them;
   * namespaces without them) would read `running` whatever they do: the first few are asked their state,
   * briefly, so the list says what `state` says (an agent blocked by an error reads so in both).
   */
  private async unlistedStates(list: AgentSummary[]): Promise<void> {
    const unlisted = list.filter((a) => a.stateWord === LISTED_RUNNING).slice(0, LIST_STATE_QUERIES);
    await Promise.all(
      unlisted.map(async (a) => {
        try {
          const s = await this.client.connection.withDeadline(Date.now() + LIST_STATE_QUERY_MS, () => this.handle(a.agentId).query(stateQuery));
          a.stateWord = runStateWord(s);
          a.model ??= s.config.model;
          a.provider ??= s.config.model.split(':')[0];
        } catch {
          // no answer in time (no worker, a long replay): it stays `running`
        }
      }),
    );
  }

  /** Starts the agent over with an empty history, keeping its configuration and queued input. */
  async reset(agentId: string): Promise<void> {
    await this.change(agentId, (updateId) => this.handle(agentId).executeUpdate(resetUpdate, { updateId }));
  }

  /** Input that returns once the agent accepted it, with its input sequence number. */
  /**
   * With `idempotencyKey` in the input, a repeated delivery (retried webhook, redelivered event) is not
   * taken again: it returns the first one's `inputSeq` with `duplicate: true`.
   */
  async send(agentId: string, input: AgentInput | string): Promise<{ inputSeq: number; duplicate?: true }> {
    const args: [AgentInput] = [asInput(input)];
    refuseUnsafePatterns(args[0]);
    await refuseOversizedInline(this.client.options.loadedDataConverter, args[0]);
    return this.change(agentId, (updateId) => this.handle(agentId).executeUpdate(sendInputUpdate, { args, updateId }));
  }

  /** Fire-and-forget input (what other services typically use). */
  async signal(agentId: string, input: AgentInput | string): Promise<void> {
    refuseUnsafePatterns(asInput(input));
    await refuseOversizedInline(this.client.options.loadedDataConverter, asInput(input));
    await this.handle(agentId).signal(inputSignal, asInput(input));
  }

  /** Waits (server-side, no polling) until the agent has finished its turn for `inputSeq`. */
  async waitForAnswer(agentId: string, inputSeq: number): Promise<TurnOutcome> {
    await this.checkWorker(agentId);
    for (;;) {
      const request = { inputSeq, ...(this.options.answersInline ? { withAnswer: true } : {}) };
      const receipt = await this.update((updateId) => this.handle(agentId).executeUpdate(waitForAnswerUpdate, { args: [request], updateId }), repeatIdempotent);
      if (receipt.status === 'continued') continue; // the agent moved to a new run; the same wait goes on there
      return this.outcomeOf(agentId, receipt);
    }
  }

  /** The outcome a receipt stands for: an answer by reference is read from the run that answered. */
  private async outcomeOf(agentId: string, receipt: TurnReceipt): Promise<TurnOutcome> {
    if (receipt.status === 'answered' && 'answerSeq' in receipt) {
      const { answerSeq, runId, ...rest } = receipt;
      return { ...rest, answer: await this.answerEntry(agentId, answerSeq, runId) };
    }
    return receipt;
  }

  /**
   * One `ask` update for the whole turn: accepted with the input (exactly once, like `send`), completed
   * with the turn's receipt — half the updates and one workflow task fewer than send + waitForAnswer.
   * The wait after acceptance is only a poll, repeated freely. A worker older than the `ask` update
   * refuses it unaccepted; then the two updates do the same.
   */
  private async askInOneUpdate(agentId: string, input: AgentInput): Promise<TurnOutcome> {
    const request: AskRequest = { input, ...(this.options.answersInline ? { withAnswer: true } : {}) };
    let answered: AskReceipt;
    try {
      answered = await retryWhile(
        async () => {
          // Returns once accepted, or once refused (then result() throws the refusal).
          const accepted = await this.change(agentId, (updateId) =>
            this.handle(agentId).startUpdate(askUpdate, { args: [request], updateId, waitForStage: WorkflowUpdateStage.ACCEPTED }),
          );
          // A refusal that proves the update was never accepted (UnprocessedUpdate) is not repeated here:
          // the handle would give the same rejection again. It ends this attempt; the next one asks anew.
          return retryWhile(
            () => accepted.result(),
            (err) => (refusedUnaccepted(err)?.freshId ? undefined : repeatIdempotent(err)?.backoff),
          );
        },
        (err) => (refusedUnaccepted(err)?.freshId ? refusedUnaccepted(err)?.backoff : undefined),
      );
    } catch (err) {
      if (!/No registered handler for update: ask\b/.test(errorText(err))) throw err;
      const { inputSeq } = await this.send(agentId, input);
      return this.waitForAnswer(agentId, inputSeq);
    }
    const { duplicate: _duplicate, ...receipt } = answered;
    if (receipt.status === 'continued') return this.waitForAnswer(agentId, receipt.inputSeq); // the turn goes on in the next run
    return this.outcomeOf(agentId, receipt);
  }

  /** The answer named by a receipt: from the current run, or from the run that answered if it was reset since. */
  private async answerEntry(agentId: string, seq: number, runId: string): Promise<ModelOutputEntry> {
    for (const handle of [this.handle(agentId), this.client.workflow.getHandle(agentId, runId)]) {
      const page = await this.query(agentId, () => handle.query(entriesQuery, { afterSeq: seq - 1, uptoSeq: seq, limit: 1 }));
      const entry = page.entries[0];
      if (entry?.seq === seq && entry.kind === 'model_output') return entry;
    }
    throw new Error(`Answer entry #${seq} of agent ${agentId} is no longer available.`);
  }

  /** send + waitForAnswer, in one update (see askInOneUpdate). */
  async ask(agentId: string, input: AgentInput | string): Promise<TurnOutcome>;
  /**
   * A typed answer: the turn's final answer is JSON matching `schema` (the provider's structured output,
   * repaired leniently, re-asked once), returned parsed as `value`. Throws TypedAnswerError when the turn
   * ends otherwise (e.g. blocked on ModelError.InvalidStructuredOutput: `retry` asks again).
   */
  async ask<S extends z.ZodType>(agentId: string, input: AgentInput | string, options: TypedAskOptions<S>): Promise<TypedOutcome<z.output<S>>>;
  async ask(agentId: string, input: AgentInput | string, options?: TypedAskOptions<z.ZodType>): Promise<TurnOutcome> {
    const sent = options ? { ...asInput(input), responseSchema: responseSchemaFor(options.schema, options.name) } : asInput(input);
    refuseUnsafePatterns(sent);
    await refuseOversizedInline(this.client.options.loadedDataConverter, sent);
    const outcome = await this.askInOneUpdate(agentId, sent);
    return options ? typedOutcome(outcome, options.schema) : outcome;
  }

  state(agentId: string): Promise<AgentStatus> {
    return this.query(agentId, () => this.handle(agentId).query(stateQuery));
  }

  /**
   * Queries retried briefly while a run has just started (continue-as-new, reset) and has no workflow
   * task yet: a moment in which the agent exists but cannot answer. With the worker check, a query
   * without an answer in QUERY_ANSWER_MS fails with NoWorkerError when no worker polls any more (its worker
   * stopped a moment ago); while a worker still polls it is busy (a loaded machine, a long replay), and
   * the query is asked again, for up to BUSY_QUERY_PATIENCE_MS.
   */
  private async query<T>(agentId: string, run: () => Promise<T>): Promise<T> {
    const justStarted = { patienceMs: 5_000, firstDelayMs: 100, maxDelayMs: 100 };
    const again = (err: unknown) => (/not scheduled yet|Workflow task is not scheduled/i.test(errorText(err)) ? justStarted : undefined);
    if (this.options.workerCheck === false) return retryWhile(run, again);
    await this.checkWorker(agentId);
    const firstAsked = Date.now();
    for (;;) {
      const deadline = Date.now() + QUERY_ANSWER_MS;
      try {
        return await retryWhile(() => this.client.connection.withDeadline(deadline, run), again);
      } catch (err) {
        // Our own deadline shows as CANCELLED ("Call cancelled"); the server's as DEADLINE_EXCEEDED.
        const ownDeadline = grpcCode(err) === 1 && Date.now() >= deadline;
        if (!unanswered(err) && !ownDeadline) throw err;
        const queue = await this.agentTaskQueue(agentId);
        this.workerChecks.forget(queue);
        const status = await this.workerStatus(queue);
        const busy = status.polling && status.lastPolledMsAgo !== null && status.lastPolledMsAgo < BUSY_WORKER_POLLED_MS;
        if (!busy) throw new NoWorkerError(status, `Agent "${agentId}" did not answer a query within ${QUERY_ANSWER_MS / 1000} s`);
        if (Date.now() - firstAsked > BUSY_QUERY_PATIENCE_MS) throw err;
      }
    }
  }

  /** An update that changes the agent: sent only when refused unaccepted, and a few at a time per agent. */
  private async change<T>(agentId: string, run: (updateId: string) => Promise<T>): Promise<T> {
    await this.checkWorker(agentId);
    return this.changes.run(agentId, () => this.update(run));
  }

  /** Whether workers poll `taskQueue` (default: the one this client starts agents on). */
  workerStatus(taskQueue: string = this.taskQueue): Promise<WorkerStatus> {
    return describeWorkers(this.client, taskQueue);
  }

  /** The task queue an agent runs on (a client with another default may have started it). */
  agentTaskQueue(agentId: string): Promise<string> {
    return this.agentQueues.get(agentId, async () => (await this.handle(agentId).describe()).taskQueue);
  }

  /**
   * Throws NoWorkerError unless a worker polls the agent's task queue (WorkflowNotFoundError if there is
   * no such agent). A worker found is trusted for WORKER_CHECK_TTL_MS; concurrent checks share one.
   */
  async requireWorker(agentId: string): Promise<void> {
    const queue = await this.agentTaskQueue(agentId);
    await this.workerChecks.get(queue, () => expectWorker(this.client, queue));
  }

  private checkWorker(agentId: string): Promise<void> {
    return this.options.workerCheck === false ? Promise.resolve() : this.requireWorker(agentId);
  }

  /**
   * Asks a worker of `taskQueue` which model providers it has and whether each can be called (through
   * the short workerInfoWorkflow); NoWorkerError at once when no worker polls the queue.
   */
  async workerInfo(taskQueue: string = this.taskQueue) {
    await expectWorker(this.client, taskQueue);
    return askWorkerInfo(this.client, taskQueue);
  }

  /**
   * Sends an update, again and again (with backoff and jitter) while Temporal refuses it without the
   * agent accepting it — overload, a burst over the 10 updates a workflow may have in flight, a failing
   * workflow task: see `refusedUnaccepted` for why each is safe. Every attempt carries the same update
   * id, so the server recognises a repeat of an update it knows rather than taking it twice. Updates
   * that change nothing (waits) pass `repeatIdempotent`, which also rides out an unreachable server.
   */
  private update<T>(run: (updateId: string) => Promise<T>, retryable: (err: unknown) => Resend | undefined = refusedUnaccepted): Promise<T> {
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

  /** One page of history entries (see EntriesRequest), for clients that page themselves (the gateway). */
  entries(agentId: string, request: EntriesRequest = {}): Promise<EntriesPage> {
    return this.query(agentId, () => this.handle(agentId).query(entriesQuery, request));
  }

  /** All history entries after `afterSeq`, paging through the `entries` query. */
  async history(agentId: string, afterSeq = 0): Promise<HistoryEntry[]> {
    const out: HistoryEntry[] = [];
    let cursor: number | null = afterSeq;
    while (cursor !== null) {
      const after = cursor;
      const page: EntriesPage = await this.query(agentId, () => this.handle(agentId).query(entriesQuery, { afterSeq: after }));
      out.push(...page.entries);
      cursor = page.nextAfterSeq;
    }
    return out;
  }

  configure(agentId: string, change: ConfigChange): Promise<AgentStatus> {
    return this.change(agentId, (updateId) => this.handle(agentId).executeUpdate(configureUpdate, { args: [change], updateId }));
  }

  /**
   * Writes the agent's memory notebook as the host (seed 000 `UpdateMemoryNotebook`): `{ set }` replaces
   * it, `{ append }` adds to it. Recorded in the agent's history; the model sees it in its next Live Screen.
   */
  updateNotebook(agentId: string, write: NotebookWrite): Promise<NotebookWriteResult> {
    return this.change(agentId, (updateId) => this.handle(agentId).executeUpdate(updateNotebookUpdate, { args: [write], updateId }));
  }

  /** Approve or deny one pending tool call (by update: refused if the call is not pending). */
  decide(agentId: string, decision: ToolDecision): Promise<AgentStatus> {
    return this.change(agentId, (updateId) => this.handle(agentId).executeUpdate(decideToolCallUpdate, { args: [decision], updateId }));
  }

  approve(agentId: string, toolCallId: string, by?: string): Promise<AgentStatus> {
    return this.decide(agentId, { toolCallId, approved: true, ...(by ? { by } : {}) });
  }

  deny(agentId: string, toolCallId: string, reason?: string, by?: string): Promise<AgentStatus> {
    return this.decide(agentId, { toolCallId, approved: false, ...(reason ? { reason } : {}), ...(by ? { by } : {}) });
  }

  /**
   * Ends the running turn without an answer (seed 004): the model call or tools in flight are cancelled,
   * finished tool calls keep their results, and the agent waits for new input; the next input continues
   * the conversation. `interrupted: false` when the agent was not working on a turn.
   */
  interrupt(agentId: string, by?: string): Promise<{ interrupted: boolean; lastSeq: number }> {
    return this.change(agentId, (updateId) => this.handle(agentId).executeUpdate(interruptUpdate, { args: [by ? { by } : {}], updateId }));
  }

  async retry(agentId: string): Promise<void> {
    await this.handle(agentId).signal(retrySignal);
  }

  /**
   * Retries the failed model call the agent is blocked on: returns that error, or null (sending nothing)
   * when the agent is not blocked by one.
   */
  async retryIfBlocked(agentId: string): Promise<AgentError | null> {
    const { lastError } = await this.state(agentId);
    if (!lastError) return null;
    await this.retry(agentId);
    return lastError;
  }

  snapshot(agentId: string): Promise<AgentSnapshot> {
    return this.query(agentId, () => this.handle(agentId).query(snapshotQuery));
  }

  /**
   * The partial output of the model call running now (text, thinking, tool calls being formed), or
   * null when none runs. The call's heartbeat details (never workflow history) say which call runs and
   * where it streams; the text is the worker's stream endpoint's when this process follows it
   * (common/stream-channel: following starts at the first look, so ask repeatedly), else the heartbeat's.
   * A retried call starts again from empty.
   */
  async partialOutput(agentId: string): Promise<PartialOutput | null> {
    const desc = await this.handle(agentId).describe();
    const pending = desc.raw.pendingActivities?.find((a) => a.activityType?.name === ('callModel' satisfies keyof ReturnType<typeof createActivities>));
    const payloads = pending?.heartbeatDetails?.payloads;
    if (!pending || !payloads?.length) return null;
    const partial = await decodePayloadAt<PartialOutput>(this.client.workflow.options.loadedDataConverter, 0, payloads);
    if (partial.attempt !== pending.attempt)
      return { ...partial, attempt: pending.attempt ?? partial.attempt, text: '', textChars: 0, thinking: '', toolCalls: [] };
    return sharedStreamReader.latest(partial);
  }

  /**
   * What the running tools last reported (their heartbeat details, e.g. an MCP tool's progress
   * `{ tool_call_id, tool, progress, total, message }`), one entry per running tool that reported any.
   * Like partialOutput, never from history.
   */
  async toolProgress(agentId: string): Promise<Array<{ activityId: string; attempt: number; details: unknown }>> {
    const desc = await this.handle(agentId).describe();
    const running = (desc.raw.pendingActivities ?? []).filter(
      (a) => a.activityType?.name === ('executeTool' satisfies keyof ReturnType<typeof createActivities>),
    );
    const reported = running.filter((a) => a.heartbeatDetails?.payloads?.length);
    const converter = this.client.workflow.options.loadedDataConverter;
    const all = await Promise.all(
      reported.map(async (a) => ({
        activityId: a.activityId ?? '',
        attempt: a.attempt ?? 1,
        details: await decodePayloadAt<unknown>(converter, 0, a.heartbeatDetails!.payloads!),
      })),
    );
    return all.filter((p) => p.details !== undefined && p.details !== null);
  }

  /** Polls partialOutput every `intervalMs` and yields each change, until `signal` aborts. */
  async *streamPartial(agentId: string, options: { intervalMs?: number; signal?: AbortSignal } = {}): AsyncGenerator<PartialOutput> {
    let last = '';
    while (!options.signal?.aborted) {
      const partial = await this.partialOutput(agentId).catch(() => null);
      const key = partial ? JSON.stringify(partial) : '';
      if (partial && key !== last) yield partial;
      last = key;
      await new Promise((r) => setTimeout(r, options.intervalMs ?? 200));
    }
  }

  async stop(agentId: string, reason?: string): Promise<void> {
    await this.handle(agentId).signal(stopSignal, reason ? { reason } : {});
  }
}

/** A query no worker took: it timed out, or the server saw no poller. */
function unanswered(err: unknown): boolean {
  return grpcCode(err) === 4 || /no poller seen|query timed out before a worker could process it|deadline exceeded/i.test(errorText(err));
}

function asInput(input: AgentInput | string): AgentInput {
  return typeof input === 'string' ? { text: input } : input;
}

/** The text of an answered turn, or a one-line description of what happened instead. */
export function outcomeText(outcome: TurnOutcome): string {
  switch (outcome.status) {
    case 'answered':
      return outcome.answer.contents.join('\n');
    case 'ignored':
      return `(input #${outcome.inputSeq} ignored: ${outcome.reason})`;
    case 'error':
      return `(the agent is blocked by an error: ${outcome.error.message})`;
    case 'stopped':
      return '(the agent stopped)';
    case 'reset':
      return '(the agent was reset)';
    case 'continued':
      return '(the agent continued in a new run)';
    case 'interrupted':
      return `(the turn was interrupted${outcome.by ? ` by ${outcome.by}` : ''}; the agent waits for input)`;
    case 'asked':
      return outcome.question;
  }
}
