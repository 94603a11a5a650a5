/**
 * AgentClient: the typed way for programs to start agents, feed them and read them. Each job has its
 * file beside this one: starting (agent-start.ts), listing (agent-list.ts), sending queries and updates
 * (agent-calls.ts) after the worker check (worker-check.ts), waiting for turns (agent-turns.ts), and
 * what runs right now (live-output.ts).
 */
import type { Client, WorkflowHandle, WorkflowHandleWithFirstExecutionRunId } from '@temporalio/client';
import type { Duration } from '@temporalio/common';
import type { z } from 'zod';
import type { PartialOutput } from '../activities/call-model';
import {
  type AgentError,
  type AgentInput,
  type AgentSnapshot,
  type ConfigChange,
  type HistoryEntry,
  InputRejectedError,
  checkAgentId,
  type TurnOutcome,
  readSnapshot,
  type RewindResult,
  type ToolRule,
} from '../agent/index';
import { ArchiveStore } from '../common/archive/index';
import type { WorkerStatus } from '../common/task-queue-pollers';
import type { agentWorkflow } from '../workflows/index';
import {
  type AgentStatus,
  type EntriesPage,
  type EntriesRequest,
  TASK_QUEUE,
  type ToolDecision,
  type ToolCallResolution,
  type ToolRulesChange,
  type WaitAnswer,
  type WaitAnswered,
  answerWaitUpdate,
  setToolRulesUpdate,
  decideToolCallUpdate,
  resolveToolCallUpdate,
  resetUpdate,
  configureUpdate,
  archiveQuery,
  entriesQuery,
  inputSignal,
  retrySignal,
  interruptUpdate,
  rewindUpdate,
  sendInputUpdate,
  snapshotQuery,
  stateQuery,
  turnOutcomeQuery,
  stopSignal,
  type NotebookWrite,
  type NotebookWriteResult,
  updateNotebookUpdate,
} from '../workflows/messages';
import { archivedForStart, checkArchiveReadable, exportedSnapshot, pageThroughArchive } from './agent-archive';
import { AgentCalls } from './agent-calls';
import { type CompareOptions, type CompareResult, checkCompareModels, compareForkId, compareResult } from './agent-compare';
import { type ForkOptions, type ForkResult, type ForkSummary, forkStart, forkStartExtras, listForks, refuseRunning } from './agent-fork';
import { type AgentSummary, listAgents } from './agent-list';
import { AgentSchedules } from './agent-schedules';
import { type StartAgentOptions, newAgentInput, startAgentWorkflow } from './agent-start';
import { AgentTurns, type TrackedAsk } from './agent-turns';
import { errorText } from './retry';
import { refuseOversizedInline } from './input-size';
import { partialOutput, pollChanges, toolProgress } from './live-output';
import { refuseUnsafePatterns } from './schema-patterns';
import { type TypedAskOptions, type TypedOutcome, responseSchemaFor, typedOutcome } from './typed-answer';
import { type InspectedCall, inspectModelCall } from './inspect-call';
import { askWorkerInfo } from './worker-info';
import { WorkerCheck } from './worker-check';
import { expectWorker } from './worker-status';

/** Trade-offs a client may choose; the defaults keep history linear and agents findable. */
export interface AgentClientOptions {
  /**
   * Start agents with the LivecontextRunState/Model/Provider search attributes (default true): they
   * make agents findable. A plain turn (one model call) writes none; a turn that goes past its first
   * model call costs two visibility updates (listed `Working`, then back at rest).
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
  /** Where agents' archived entries are read and an import's are written (default: from the environment, as the workers). */
  archive?: ArchiveStore;
}

export class AgentClient {
  private archiveStore: ArchiveStore | undefined;
  private readonly workers: WorkerCheck;
  private readonly calls: AgentCalls;
  private readonly turns: AgentTurns;

  constructor(
    readonly client: Client,
    readonly taskQueue: string = TASK_QUEUE,
    readonly options: AgentClientOptions = {},
  ) {
    this.workers = new WorkerCheck(client, options.workerCheck !== false);
    this.calls = new AgentCalls(client, this.workers, options.maxUpdatesInFlight ?? 5);
    this.turns = new AgentTurns(client, this.calls, this.workers, !!options.answersInline, (agentId, input) => this.send(agentId, input));
  }

  /** Schedules that send agents input at set times (Temporal Schedules; see agent-schedules.ts). */
  get schedules(): AgentSchedules {
    return new AgentSchedules(this.client, this.taskQueue);
  }

  handle(agentId: string): WorkflowHandle<typeof agentWorkflow> {
    return this.calls.handle(agentId);
  }

  /** Starts a new agent; fails with WorkflowExecutionAlreadyStartedError if one with this id is running. */
  async start(agentId: string, options: StartAgentOptions): Promise<WorkflowHandleWithFirstExecutionRunId<typeof agentWorkflow>> {
    checkAgentId(agentId); // first: every way to a new agent comes here or to restore (CLI, chat, gateway)
    const handle = await startAgentWorkflow(this.client, this.taskQueue, this.options, agentId, newAgentInput(options));
    this.workers.started(agentId, this.taskQueue); // its first ask need not describe it to find its queue
    return handle;
  }

  /**
   * Starts an agent from a snapshot (import). The snapshot is checked first (throws SnapshotError naming
   * what is inconsistent); its tool-call approvals are asked again, not taken as given.
   */
  async restore(agentId: string, snapshot: AgentSnapshot): Promise<WorkflowHandleWithFirstExecutionRunId<typeof agentWorkflow>> {
    checkAgentId(agentId);
    const checked = readSnapshot(snapshot);
    if (checked.archive) await checkArchiveReadable(this.archive, checked.archive);
    // A long history goes to the archive first: the start carries only the working set (see agent-archive.ts).
    const start = await archivedForStart(this.archive, checked);
    return startAgentWorkflow(this.client, this.taskQueue, this.options, agentId, { snapshot: start, imported: true });
  }

  /**
   * A new agent whose history is this one's up to entry `at` (a turn's end, or an input whose turn it runs
   * again), with its widgets as they were there, the changes asked (model, tools, system instruction), an
   * empty workspace and its lineage (`state().config.forkedFrom`). The source is only read. Throws
   * WorkflowNotFoundError (no such agent), WorkflowExecutionAlreadyStartedError (`as` runs already) or
   * InputRejectedError (BAD_FORK_POINT, BAD_CONFIG, BAD_AGENT_ID) before anything is started.
   */
  async fork(agentId: string, options: ForkOptions): Promise<ForkResult> {
    const { taskQueue, prepared } = await this.prepareForks(agentId, [options]);
    const [{ snapshot, result }] = prepared;
    await startAgentWorkflow(this.client, taskQueue, this.options, result.agentId, { snapshot, imported: true }, forkStartExtras(result.forkedFrom));
    return result;
  }

  /** The agents forked from this one (found through visibility; the source holds no list). */
  forks(agentId: string): Promise<ForkSummary[]> {
    return listForks(this.client, agentId);
  }

  /**
   * What-if: one fork per model at the input `at`, each running its turn again; waits for every turn and
   * returns each answer with its usage, cost and duration. The forks remain as agents.
   */
  async compare(agentId: string, options: CompareOptions): Promise<CompareResult[]> {
    checkCompareModels(options.models);
    const { at, models, systemInstruction, tools } = options;
    const forks = models.map((model) => ({
      at,
      as: options.forkId?.(model) ?? compareForkId(agentId, at, model, options.prefix),
      model,
      ...(systemInstruction !== undefined ? { systemInstruction } : {}),
      ...(tools ? { tools } : {}),
    }));
    const { taskQueue, prepared } = await this.prepareForks(agentId, forks, 'model_input');
    const started = await Promise.all(
      prepared.map(async ({ snapshot, result }) => {
        const handle = await startAgentWorkflow(
          this.client,
          taskQueue,
          this.options,
          result.agentId,
          { snapshot, imported: true },
          forkStartExtras(result.forkedFrom),
        );
        return {
          agentId: result.agentId,
          inputSeq: snapshot.consumedInputSeq,
          startedAt: await handle
            .describe()
            .then((d) => d.startTime)
            .catch(() => undefined),
        };
      }),
    );
    return Promise.all(
      started.map(async ({ agentId: forkId, inputSeq, startedAt }, i) => {
        const outcome = await this.waitForAnswer(forkId, inputSeq);
        return compareResult(models[i], forkId, outcome, await this.history(forkId, at), startedAt);
      }),
    );
  }

  /** Every check of a fork before any is started, and their snapshots (the source is read once). */
  private async prepareForks(agentId: string, list: ForkOptions[], expect?: 'model_input') {
    for (const o of list) {
      checkAgentId(o.as);
      if (o.as === agentId) throw new InputRejectedError('BAD_AGENT_ID', "A fork needs an id of its own, not its source's.");
      await refuseRunning(this.client, o.as);
    }
    const description = await this.handle(agentId).describe(); // WorkflowNotFoundError: no such agent
    const source = await this.snapshot(agentId);
    const prepared = [];
    for (const o of list) prepared.push(await forkStart(this.archive, source, agentId, description.runId, o, expect));
    return { taskQueue: description.taskQueue, prepared };
  }

  /** The archive of agents' older entries (blob store and codec keys as the workers'). */
  get archive(): ArchiveStore {
    return (this.archiveStore ??= this.options.archive ?? ArchiveStore.fromEnv());
  }

  /**
   * Agents in this namespace (running ones by default), newest first, through Temporal visibility.
   * Run state, model and provider come from the search attributes when the namespace has them.
   */
  list(options: { all?: boolean; limit?: number } = {}): Promise<AgentSummary[]> {
    return listAgents(this.client, options);
  }

  /** Starts the agent over with an empty history, keeping its configuration and queued input. */
  async reset(agentId: string): Promise<void> {
    await this.calls.change(agentId, (updateId) => this.handle(agentId).executeUpdate(resetUpdate, { updateId }));
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
    return this.calls.change(agentId, (updateId) => this.handle(agentId).executeUpdate(sendInputUpdate, { args, updateId }));
  }

  /** Fire-and-forget input (what other services typically use). */
  async signal(agentId: string, input: AgentInput | string): Promise<void> {
    refuseUnsafePatterns(asInput(input));
    await refuseOversizedInline(this.client.options.loadedDataConverter, asInput(input));
    await this.handle(agentId).signal(inputSignal, asInput(input));
  }

  /** Waits (server-side, no polling) until the agent has finished its turn for `inputSeq`. */
  waitForAnswer(agentId: string, inputSeq: number): Promise<TurnOutcome> {
    return this.turns.waitForAnswer(agentId, inputSeq);
  }

  /** send + waitForAnswer, in one update (see AgentTurns.askInOneUpdate). */
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
    const outcome = await this.turns.askInOneUpdate(agentId, sent);
    return options ? typedOutcome(outcome, options.schema) : outcome;
  }

  /**
   * `ask` for a caller that follows the turn before it ends (a chat, an event stream, a CLI that reports
   * approvals): `accepted()` names the input (one query, only when called), `outcome` is `ask`'s. One
   * update per turn, as `ask`; send + waitForAnswer cost two and five more history events.
   */
  async askTracked(agentId: string, input: AgentInput | string): Promise<TrackedAsk> {
    const sent = asInput(input);
    refuseUnsafePatterns(sent);
    await refuseOversizedInline(this.client.options.loadedDataConverter, sent);
    return this.turns.askTracked(agentId, sent);
  }

  /**
   * How the turn of `inputSeq` ended, for a turn known to be over (the state says so): a query, so no
   * update and no history event; undefined while it is not over. A worker older than the query is asked
   * with waitForAnswer, which answers at once for a turn that is over.
   */
  async finishedTurn(agentId: string, inputSeq: number): Promise<TurnOutcome | undefined> {
    try {
      return (await this.calls.query(agentId, () => this.handle(agentId).query(turnOutcomeQuery, inputSeq))) ?? undefined;
    } catch (err) {
      if (!/turnOutcome/.test(errorText(err)) || !/(unknown|registered|handler)/i.test(errorText(err))) throw err;
      return this.waitForAnswer(agentId, inputSeq);
    }
  }

  state(agentId: string): Promise<AgentStatus> {
    return this.calls.query(agentId, () => this.handle(agentId).query(stateQuery));
  }

  /** Whether workers poll `taskQueue` (default: the one this client starts agents on). */
  workerStatus(taskQueue: string = this.taskQueue): Promise<WorkerStatus> {
    return this.workers.status(taskQueue);
  }

  /** The task queue an agent runs on (a client with another default may have started it). */
  agentTaskQueue(agentId: string): Promise<string> {
    return this.workers.agentTaskQueue(agentId);
  }

  /**
   * Throws NoWorkerError unless a worker polls the agent's task queue (WorkflowNotFoundError if there is
   * no such agent). A worker found is trusted for a while (see worker-check.ts); concurrent checks share one.
   */
  requireWorker(agentId: string): Promise<void> {
    return this.workers.require(agentId);
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
   * What model call `seq` (its model_output entry) was sent: rendered again from history by a worker of
   * the agent's task queue and checked against the fingerprint the call recorded (see inspect-call.ts).
   */
  async inspectCall(agentId: string, seq: number): Promise<InspectedCall> {
    await this.requireWorker(agentId);
    return inspectModelCall(this.client, await this.agentTaskQueue(agentId), agentId, seq);
  }

  /**
   * One page of history entries (see EntriesRequest), for clients that page themselves (the gateway):
   * archived entries come from the archive, later ones from the agent.
   */
  async entries(agentId: string, request: EntriesRequest = {}): Promise<EntriesPage> {
    const working = await this.calls.query(agentId, () => this.handle(agentId).query(entriesQuery, request));
    return pageThroughArchive(this.archive, request, working, () => this.calls.query(agentId, () => this.handle(agentId).query(archiveQuery)));
  }

  /** All history entries after `afterSeq`, page by page. */
  async history(agentId: string, afterSeq = 0): Promise<HistoryEntry[]> {
    const out: HistoryEntry[] = [];
    let cursor: number | null = afterSeq;
    while (cursor !== null) {
      const page: EntriesPage = await this.entries(agentId, { afterSeq: cursor });
      out.push(...page.entries);
      cursor = page.nextAfterSeq;
    }
    return out;
  }

  configure(agentId: string, change: ConfigChange): Promise<AgentStatus> {
    return this.calls.change(agentId, (updateId) => this.handle(agentId).executeUpdate(configureUpdate, { args: [change], updateId }));
  }

  /**
   * Writes the agent's memory notebook as the host (seed 000 `UpdateMemoryNotebook`): `{ set }` replaces
   * it, `{ append }` adds to it. Recorded in the agent's history; the model sees it in its next Live Screen.
   */
  updateNotebook(agentId: string, write: NotebookWrite): Promise<NotebookWriteResult> {
    return this.calls.change(agentId, (updateId) => this.handle(agentId).executeUpdate(updateNotebookUpdate, { args: [write], updateId }));
  }

  /**
   * Approve or deny one pending tool call (by update: refused if the call is not pending). The first
   * decision wins: a later one, through any door, is refused (`ALREADY_ANSWERED`) naming who decided,
   * through which door and when. `door` (default `client`) is recorded with the decision.
   */
  decide(agentId: string, decision: ToolDecision): Promise<AgentStatus> {
    const args: [ToolDecision] = [{ ...decision, door: decision.door ?? 'client' }];
    return this.calls.change(agentId, (updateId) => this.handle(agentId).executeUpdate(decideToolCallUpdate, { args, updateId }));
  }

  approve(agentId: string, toolCallId: string, by?: string, door?: string): Promise<AgentStatus> {
    return this.decide(agentId, { toolCallId, approved: true, ...(by ? { by } : {}), ...(door ? { door } : {}) });
  }

  deny(agentId: string, toolCallId: string, reason?: string, by?: string, door?: string): Promise<AgentStatus> {
    return this.decide(agentId, { toolCallId, approved: false, ...(reason ? { reason } : {}), ...(by ? { by } : {}), ...(door ? { door } : {}) });
  }

  /**
   * Answers one of the agent's waits (`state().waits`, see agent/waits.ts) — the one method every door
   * uses: an approval `{ approved, reason?, remember? }`, an unknown outcome `{ done }` / `{ failed }` /
   * `{ retry: true }`, a question `{ text }` (queued as the next input, marked as the question's answer).
   * The first answer wins; a later one, through any door, is refused (`ALREADY_ANSWERED`: "already
   * answered by <door / by> at <time>") and changes nothing. `door` defaults to `client`.
   */
  answerWait(
    agentId: string,
    waitId: string,
    answer: WaitAnswer['answer'],
    options: { by?: string; door?: string } = {},
  ): Promise<WaitAnswered & { status: AgentStatus }> {
    const args: [WaitAnswer] = [{ waitId, answer, door: options.door ?? 'client', ...(options.by !== undefined ? { by: options.by } : {}) }];
    return this.calls.change(agentId, (updateId) => this.handle(agentId).executeUpdate(answerWaitUpdate, { args, updateId }));
  }

  /** The agent's tool rules (approval policy, see agent/tool-rules.ts), in the order they apply. */
  async toolRules(agentId: string): Promise<ToolRule[]> {
    return (await this.state(agentId)).config.toolRules ?? [];
  }

  /**
   * Replaces the agent's tool rules as a whole (`[]` removes them): recorded in its history as a
   * `tool_rules` entry, applied from its next tool call on. Refused (`BAD_TOOL_RULES`) for a rule that is not one.
   */
  setToolRules(agentId: string, rules: ToolRule[], options: { by?: string } = {}): Promise<{ seq: number; rules: ToolRule[] }> {
    const args: [ToolRulesChange] = [{ rules, ...(options.by !== undefined ? { by: options.by } : {}) }];
    return this.calls.change(agentId, (updateId) => this.handle(agentId).executeUpdate(setToolRulesUpdate, { args, updateId }));
  }

  /**
   * Resolves a tool call whose outcome is unknown (`state().unknownOutcomes`): `{ done: text }` records it
   * succeeded, `{ failed: text }` failed, `{ retry: true }` runs it again. Refused (by update) for a call
   * that is not unknown, or was resolved already.
   */
  resolveToolCall(agentId: string, resolution: ToolCallResolution): Promise<AgentStatus> {
    const args: [ToolCallResolution] = [{ ...resolution, door: resolution.door ?? 'client' }];
    return this.calls.change(agentId, (updateId) => this.handle(agentId).executeUpdate(resolveToolCallUpdate, { args, updateId }));
  }

  /**
   * Ends the running turn without an answer (seed 004): the model call or tools in flight are cancelled,
   * finished tool calls keep their results, and the agent waits for new input; the next input continues
   * the conversation. `interrupted: false` when the agent was not working on a turn. With `inputSeq`, only
   * that input's turn is interrupted: InputRejectedError `NOT_RUNNING` when it is queued or over.
   */
  interrupt(agentId: string, by?: string, options: { inputSeq?: number } = {}): Promise<{ interrupted: boolean; lastSeq: number }> {
    const request = { ...(by ? { by } : {}), ...(options.inputSeq !== undefined ? { inputSeq: options.inputSeq } : {}) };
    return this.calls.change(agentId, (updateId) => this.handle(agentId).executeUpdate(interruptUpdate, { args: [request], updateId }));
  }

  /**
   * Takes the agent back to entry `toSeq` (issue 30, time travel): a turn's end (it then waits for input)
   * or a model input (its turn runs again). History keeps every entry and a `rewind` entry records it; the
   * entries after `toSeq` leave the model's context, the widgets and the budgets. Queued input is kept.
   * Refused, and nothing changed (a WorkflowUpdateFailedError whose cause's `type` says why), while the
   * agent works (`AGENT_WORKING`: interrupt it first), for a point not valid (`BAD_REWIND_POINT`, the
   * message naming the nearest valid points); an archived point is read from its segment first (`REWIND_ARCHIVED` only past 256 such rewinds).
   */
  rewind(agentId: string, toSeq: number, options: { by?: string; reason?: string } = {}): Promise<RewindResult> {
    return this.calls.change(agentId, (updateId) => this.handle(agentId).executeUpdate(rewindUpdate, { args: [{ toSeq, ...options }], updateId }));
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

  /** The agent's state as its workflow holds it: the working set, and the archive's index once entries were archived. */
  snapshot(agentId: string): Promise<AgentSnapshot> {
    return this.calls.query(agentId, () => this.handle(agentId).query(snapshotQuery));
  }

  /**
   * The agent as an export: a version-1 snapshot with every entry, archived ones included, as text in
   * pieces (write them out as they come: a large agent is never held whole).
   */
  async export(agentId: string): Promise<{ entries: number; text: AsyncGenerator<string> }> {
    const snapshot = await this.snapshot(agentId);
    return { entries: (snapshot.archive?.entries ?? 0) + snapshot.entries.length, text: exportedSnapshot(this.archive, snapshot, agentId) };
  }

  /** The partial output of the model call running now, or null when none runs (see live-output.ts). */
  partialOutput(agentId: string): Promise<PartialOutput | null> {
    return partialOutput(this.client, agentId);
  }

  /** What the running tools last reported, from their heartbeat details (see live-output.ts). */
  toolProgress(agentId: string): Promise<Array<{ activityId: string; attempt: number; details: unknown }>> {
    return toolProgress(this.client, agentId);
  }

  /** Polls partialOutput every `intervalMs` and yields each change, until `signal` aborts. */
  streamPartial(agentId: string, options: { intervalMs?: number; signal?: AbortSignal } = {}): AsyncGenerator<PartialOutput> {
    return pollChanges(() => this.partialOutput(agentId), options);
  }

  async stop(agentId: string, reason?: string): Promise<void> {
    await this.handle(agentId).signal(stopSignal, reason ? { reason } : {});
  }
}

function asInput(input: AgentInput | string): AgentInput {
  return typeof input === 'string' ? { text: input } : input;
}
