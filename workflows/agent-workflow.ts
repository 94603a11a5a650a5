/**
 * The agent workflow: seed 004's state machine, durable. It runs `doStep()` until the agent is blocked
 * on input, then waits for input. Everything the agent knows lives in `Agent` (pure, in ../agent), so
 * this file only wires Temporal to it: handlers in, activities out.
 */
import {
  ActivityFailure,
  ApplicationFailure,
  CancellationScope,
  ParentClosePolicy,
  getExternalWorkflowHandle,
  isCancellation,
  startChild,
  allHandlersFinished,
  condition,
  continueAsNew,
  log,
  proxyActivities,
  proxyLocalActivities,
  setHandler,
  sleep,
  upsertSearchAttributes,
  workflowInfo,
} from '@temporalio/workflow';
import { WorkflowExecutionAlreadyStartedError } from '@temporalio/common';
import type { createActivities } from '../activities/index';
import {
  Agent,
  AgentConfig,
  AgentRunState,
  ConfigChange,
  IDEMPOTENCY_PRINTS_CHANGE,
  InfrastructureError,
  InputRejectedError,
  LivecontextError,
  MAX_DERIVED_ID_CHARS,
  MAX_INLINE_PAYLOAD_BYTES,
  readSnapshot,
  shortenId,
  SUB_AGENT_FAILURES_CHANGE,
  restLabel,
  undecodableReason,
  utf8Length,
  type StepDeps,
  type TurnOutcome,
} from '../agent/index';
import { DEFAULT_MODEL_ACTIVITY_OPTIONS, DEFAULT_TOOL_ACTIVITY_OPTIONS } from './activity-options';
import { pageEntries } from './agent-views';
import { entryFeed } from './entry-feed';
import { agentMetrics } from './agent-metrics';
import { MODEL_ROUTING_CHANGE, ROUTED_START_TIMEOUT, isRoutable, notTaken, notTakenFailure, providerOf, providerTaskQueue } from './model-routing';
import {
  ANSWER_BY_REFERENCE_PATCH,
  INLINE_SMALL_ANSWER_PATCH,
  LAZY_WORKING_PATCH,
  RETRY_CLEARS_ERROR_PATCH,
  RETRY_ONLY_AT_STAKE_PATCH,
  runChanges,
  STATE_SIZE_GUARD_PATCH,
  TIMERS_CARRIED_PATCH,
  UPDATE_BUDGET_PATCH,
} from './run-changes';
import {
  type AgentWorkflowInput,
  type NotebookWrite,
  MODEL_ATTRIBUTE,
  PROVIDER_ATTRIBUTE,
  RUN_STATE_ATTRIBUTE,
  type TurnReceipt,
  configureSignal,
  configureUpdate,
  decideToolCallSignal,
  decideToolCallUpdate,
  entriesQuery,
  inputSignal,
  pendingToolCallsQuery,
  resetUpdate,
  retrySignal,
  interruptUpdate,
  subAgentResultSignal,
  sendInputUpdate,
  snapshotQuery,
  stateQuery,
  stopSignal,
  updateNotebookUpdate,
  waitForAnswerUpdate,
  askUpdate,
  type AskReceipt,
} from './messages';

type Activities = ReturnType<typeof createActivities>;
const { callModel } = proxyActivities<Activities>(DEFAULT_MODEL_ACTIVITY_OPTIONS);
const { executeTool } = proxyActivities<Activities>(DEFAULT_TOOL_ACTIVITY_OPTIONS);
const { payloadLimits } = proxyLocalActivities<Activities>({ startToCloseTimeout: '10 seconds' });

export const DEFAULT_HISTORY_BUDGET_BYTES = 8 * 1024 * 1024;
/** An answer of at most this many characters (as JSON) comes back in the update's result (INLINE_SMALL_ANSWER_PATCH). */
const INLINE_ANSWER_CHARS = 4096;
/** Temporal refuses updates past about 2,000 per run (history.maxTotalUpdates): move on well before. */
const UPDATE_BUDGET = 1500;

export interface AgentWorkflowResult {
  stopped: true;
  reason: string;
  lastSeq: number;
}

export async function agentWorkflow(input: AgentWorkflowInput): Promise<AgentWorkflowResult> {
  const changed = runChanges(); // first: its marker, if any, goes with the run's first task
  const clock = () => Date.now(); // Temporal's deterministic clock inside workflows
  const agent = createAgent(input, clock, changed);
  let stopReason: string | undefined;
  let resetRequested = false;
  let continuing = false;
  let retryRequested = false;
  const ending = () => stopReason !== undefined || resetRequested || continuing;
  // A model call has failed or is under way: only such a call is tried again. A request while the agent
  // is idle or runs tools would stay armed and retry its next error at once, unasked.
  const modelCallAtStake = () => !!agent.lastError || agent.runState === 'PendingInput' || agent.runState === 'PendingToolResults';
  const requestRetry = (explicit = false) => {
    if (modelCallAtStake() || !changed(RETRY_ONLY_AT_STAKE_PATCH)) retryRequested = true;
    // An explicit retry of a hit budget allows as much again (a no-op for any other error).
    if (explicit) agent.grantBudget();
    // A client that retries and then waits for the answer must see the turn in progress again, not the
    // error being retried (the loop clears it too, but only once it runs, after this activation's handlers).
    if (agent.lastError && changed(RETRY_CLEARS_ERROR_PATCH)) agent.clearError();
  };
  const visibility = searchAttributePublisher(agent, changed);
  const metrics = agentMetrics(agent); // replay-safe counters: turns, blocks, continue-as-new
  const carrier = stateCarrier(agent, changed);
  const status = () => agent.status({ stopping: stopReason !== undefined, warning: carrier.refusal });
  let updates = 0; // updates this run has taken (see UPDATE_BUDGET)
  const counted =
    <A extends unknown[], R>(handler: (...args: A) => R) =>
    (...args: A): R => {
      updates++;
      return handler(...args);
    };

  // An input with an idempotency key keeps its fingerprint (asked for only then: most inputs have none).
  const keyed = (raw: unknown) => ({ since: changed, fingerprint: hasIdempotencyKey(raw) && changed(IDEMPOTENCY_PRINTS_CHANGE) });
  setHandler(inputSignal, (raw) => {
    try {
      const { inputSeq } = agent.enqueueInput(raw, keyed(raw));
      log.debug('input accepted (signal)', { category: 'History', inputSeq });
    } catch (err) {
      // A signal cannot be refused, and throwing here would fail the workflow task: log and drop.
      log.warn('input signal dropped', { category: 'History', reason: (err as Error).message });
    }
  });

  const checkInput = (raw: unknown) => {
    if (stopReason !== undefined) throw new InputRejectedError('AGENT_STOPPING', 'The agent is stopping.');
    agent.checkInput(raw); // so a refused input never reaches the handler
  };
  setHandler(
    sendInputUpdate,
    counted((raw) => agent.enqueueInput(raw, keyed(raw))),
    { validator: refusing(checkInput) },
  );

  /** Waits for the turn of `inputSeq` to be over (or this run to end) and says how it ended. */
  const receipt = async (inputSeq: number, withAnswer?: boolean): Promise<TurnReceipt> => {
    let outcome: TurnOutcome | undefined;
    await condition(() => (outcome = agent.turnOutcome(inputSeq)) !== undefined || ending());
    if (!outcome) return { inputSeq, status: resetRequested ? 'reset' : continuing ? 'continued' : 'stopped' };
    if (outcome.status !== 'answered' || withAnswer || !changed(ANSWER_BY_REFERENCE_PATCH)) return outcome;
    if (JSON.stringify(outcome.answer).length <= INLINE_ANSWER_CHARS && changed(INLINE_SMALL_ANSWER_PATCH)) return outcome;
    // The answer entry is in history already (the model call's result): name it, do not copy it.
    const { answer, ...rest } = outcome;
    return { ...rest, answerSeq: answer.seq, runId: workflowInfo().runId };
  };
  setHandler(
    askUpdate,
    counted(async ({ input, withAnswer }): Promise<AskReceipt> => {
      const { inputSeq, duplicate } = agent.enqueueInput(input, keyed(input));
      return { ...(await receipt(inputSeq, withAnswer === true)), ...(duplicate ? { duplicate } : {}) };
    }),
    { validator: refusing((request) => checkInput((request as { input?: unknown } | undefined)?.input)) },
  );

  setHandler(
    waitForAnswerUpdate,
    counted(({ inputSeq, withAnswer }) => receipt(inputSeq, withAnswer)),
    {
      validator: refusing((request) => {
        const inputSeq = (request as { inputSeq?: unknown } | undefined)?.inputSeq;
        if (typeof inputSeq !== 'number' || !Number.isInteger(inputSeq) || inputSeq < 1 || inputSeq >= agent.nextInputSeq) {
          throw new InputRejectedError('UNKNOWN_INPUT', `No input #${String(inputSeq)} was accepted by this agent.`);
        }
      }),
    },
  );

  const applyConfig = (change: ConfigChange) => {
    agent.configure(change);
    requestRetry(); // a new configuration is a reason to try a failed call again
    visibility.publish();
    log.debug('configuration changed', { category: 'History', fields: Object.keys(change ?? {}) });
  };
  setHandler(configureSignal, (change) => {
    try {
      applyConfig(change);
    } catch (err) {
      log.warn('configure signal dropped', { category: 'History', reason: (err as Error).message });
    }
  });
  setHandler(
    configureUpdate,
    counted((change) => {
      applyConfig(change);
      return status();
    }),
    { validator: refusing((change) => void agent.checkConfigChange(change)) },
  );

  setHandler(
    updateNotebookUpdate,
    counted(({ by, ...write }) => {
      const { entry, outcome } = agent.writeWidget('memory_notebook', write, by);
      log.debug(`notebook written by the host: ${outcome.result}`, { category: 'Widgets', seq: entry.seq });
      return { notebook: agent.notebook.content, seq: entry.seq };
    }),
    {
      validator: refusing((request) => {
        const { by, ...write } = (request ?? {}) as NotebookWrite;
        if (by !== undefined && (typeof by !== 'string' || by.length > 200))
          throw new InputRejectedError('BAD_WIDGET_WRITE', '`by` is a name of at most 200 characters.');
        agent.checkWidgetWrite('memory_notebook', write);
      }),
    },
  );

  let decisions = 0; // bumped on every approve/deny, to wake a loop blocked on approval
  const decide = (raw: unknown) => {
    const d = agent.decideToolCall(raw); // validated the same way for the update and the signal
    decisions++;
    log.debug(`tool call ${d.toolCallId} ${d.approved ? 'approved' : 'denied'}`, { category: 'Tools', by: d.by });
  };
  setHandler(
    decideToolCallUpdate,
    counted((d) => {
      decide(d);
      return status();
    }),
    { validator: refusing((d) => void agent.checkDecision(d)) },
  );
  setHandler(decideToolCallSignal, (d) => {
    try {
      decide(d);
    } catch (err) {
      log.warn('tool decision dropped', { category: 'Tools', reason: (err as Error).message });
    }
  });

  setHandler(retrySignal, () => requestRetry(true));

  // Sub-agents report to the run that is current when they finish; their calls are in the agent's state.
  setHandler(subAgentResultSignal, (result) => {
    try {
      const r = agent.recordSubAgentResult(result);
      log.debug(`sub-agent ${r.agentId} answered ${r.toolCallId}: ${r.status}`, { category: 'Tools' });
    } catch (err) {
      log.warn('sub-agent result dropped', { category: 'Tools', reason: (err as Error).message });
    }
  });
  /** Stops the sub-agents still working for this agent (fire and forget: a child already gone is fine). */
  const stopSubAgents = (reason: string): Promise<unknown> =>
    Promise.all(
      agent.runningSubAgents().map((child) =>
        getExternalWorkflowHandle(child.agentId)
          .signal(stopSignal, { reason })
          .catch((err: unknown) => log.warn('could not stop a sub-agent', { category: 'Tools', agentId: child.agentId, reason: (err as Error).message })),
      ),
    );

  // An interrupt cancels the step in flight (its model call or tools) and has the agent record it.
  let interruptRequest: { by?: string } | undefined;
  let stepScope: CancellationScope | undefined;
  let interrupts = 0; // bumped when one is recorded, for the update that asked
  const recordInterrupt = (request: { by?: string }) => {
    void stopSubAgents('the turn that asked was interrupted'); // its calls are answered Skipped right away
    if (agent.interrupt(request.by)) log.info('turn interrupted', { category: 'StateMachine', by: request.by });
    interruptRequest = undefined;
    interrupts++;
  };
  setHandler(
    interruptUpdate,
    counted(async (request) => {
      const by = typeof request?.by === 'string' ? request.by.slice(0, 200) : undefined;
      if (agent.runState === AgentRunState.WaitingInput) return { interrupted: false, lastSeq: agent.state.lastSeq };
      const seen = interrupts;
      interruptRequest = by !== undefined ? { by } : {};
      stepScope?.cancel();
      await condition(() => interrupts !== seen || ending());
      return { interrupted: interrupts !== seen, lastSeq: agent.state.lastSeq };
    }),
  );
  setHandler(
    resetUpdate,
    counted(() => {
      resetRequested = true;
      return { reset: true as const };
    }),
  );
  setHandler(stopSignal, (arg) => {
    const reason = (arg as { reason?: unknown } | undefined)?.reason;
    stopReason = typeof reason === 'string' && reason ? reason.slice(0, 1000) : 'stop requested';
  });

  setHandler(stateQuery, status);
  setHandler(entriesQuery, (req) => pageEntries(agent.state.entries, req ?? {}));
  setHandler(pendingToolCallsQuery, () => agent.pendingToolCalls());
  setHandler(snapshotQuery, () => agent.toSnapshot());

  const overUpdateBudget = () => updates >= UPDATE_BUDGET && changed(UPDATE_BUDGET_PATCH);
  const history = historyMonitor(agent, overUpdateBudget);
  const steps = stepScopes();
  const deps = stepDeps(agent, changed, {
    childStarted: () => steps.childStarted(),
    subAgentWaitEnds: () => ending() || !!interruptRequest,
    // A running sleep gives way when this run must end: stop, reset, or a history grown too long while
    // the agent slept (inputs keep arriving). Its timer is in the agent's state and resumes in the next run.
    interrupt: () => ending() || (history.tooLongWhileWaiting() && !carrier.blocked),
    onInterrupted: () => {
      if (!ending()) continuing = true;
    },
  });
  /**
   * A sub-agent tells its parent the outcome of its task (its first input) once there is one, then
   * stops. True when it reported. The parent is signalled by workflow id: its current run gets it.
   */
  let reported = false;
  const reportToParent = async (): Promise<boolean> => {
    const parent = agent.config.delegatedBy;
    if (!parent || reported) return false;
    const outcome = agent.turnOutcome(1);
    const stoppedFirst = !outcome && (stopReason !== undefined || resetRequested);
    if (!outcome && !stoppedFirst) return false;
    const { workflowId } = workflowInfo();
    const [status, text]: ['Success' | 'Failed', string] =
      outcome?.status === 'answered'
        ? ['Success', outcome.answer.contents.join('\n')]
        : outcome?.status === 'asked'
          ? ['Failed', `The sub-agent needs an answer it cannot get: ${outcome.question}`]
          : outcome?.status === 'error'
            ? ['Failed', `The sub-agent failed: ${outcome.error.message}`]
            : ['Failed', `The sub-agent ended without an answer (${outcome?.status ?? `stopped: ${stopReason ?? 'reset'}`}).`];
    reported = true;
    try {
      await getExternalWorkflowHandle(parent.agentId).signal(subAgentResultSignal, {
        toolCallId: parent.toolCallId,
        agentId: workflowId,
        status,
        text: text.slice(0, 1024 * 1024),
      });
    } catch (err) {
      log.warn('could not report to the parent agent', { category: 'Tools', parent: parent.agentId, reason: (err as Error).message });
    }
    stopReason ??= 'reported its outcome to its parent';
    return true;
  };
  for (;;) {
    while (!ending()) {
      if (interruptRequest) {
        recordInterrupt(interruptRequest);
        continue;
      }
      let outcome: Awaited<ReturnType<Agent['doStep']>>;
      try {
        // A scope for the step, so an interrupt cancels exactly what this step has in flight.
        stepScope = steps.scope();
        outcome = await stepScope.run(() => agent.doStep(deps));
      } catch (err) {
        if (!interruptRequest || !(isCancellation(err) || (err instanceof InfrastructureError && err.code === STEP_CANCELLED))) throw err;
        outcome = 'ProgressMade';
      } finally {
        steps.done(stepScope!);
        stepScope = undefined;
      }
      if (interruptRequest) {
        recordInterrupt(interruptRequest);
        continue;
      }
      // A safe point: no activity of ours is in flight. Long agents move to a fresh run here.
      if (history.tooLong() && !carrier.blocked) {
        continuing = true;
        break;
      }
      if (outcome === 'ProgressMade') {
        visibility.progressed();
        metrics.progressed();
        continue;
      }
      // A sub-agent's work ends with its task's outcome (checked first: an await per rest costs promises the SDK traces).
      if (agent.config.delegatedBy && (await reportToParent())) break;
      visibility.publish(outcome);
      metrics.rested(outcome);
      if (outcome === 'BlockedOnInput') {
        await condition(() => agent.inbox.length > 0 || ending() || overUpdateBudget());
      } else if (outcome === 'BlockedOnApproval') {
        const seen = decisions;
        await condition(() => decisions !== seen || ending() || !!interruptRequest);
      } else if (outcome === 'BlockedOnError') {
        await condition(() => retryRequested || ending() || !!interruptRequest);
        retryRequested = false;
        agent.clearError();
      }
      visibility.woke(outcome);
    }
    if (!continuing || stopReason !== undefined || resetRequested) break;
    const checkedJson = await carrier.canCarry();
    if (checkedJson !== undefined) {
      await condition(allHandlersFinished);
      if (stopReason !== undefined || resetRequested) break; // arrived while the worker was asked
      // Lossless: the new run starts from the whole agent — history, pending results, approvals, inbox,
      // configuration, widgets. Large state is offloaded by the payload codec, never truncated.
      log.info('continuing as new', { category: 'History', historySize: workflowInfo().historySize, entries: agent.state.entries.length });
      metrics.continuedAsNew('history');
      const snapshot = agent.toSnapshot();
      // Unchanged by the handlers that finished meanwhile: the new run need not check it again.
      const checked = JSON.stringify(snapshot) === checkedJson;
      await continueAsNew<typeof agentWorkflow>({ snapshot, ...(checked ? { checked } : {}) });
    }
    continuing = false; // the state cannot be carried: this run goes on (see stateCarrier)
  }
  if (stopReason !== undefined || resetRequested) await stopSubAgents(stopReason !== undefined ? `its parent stopped: ${stopReason}` : 'its parent was reset');
  await reportToParent(); // stopped before its task had an outcome: the parent hears it failed
  await condition(allHandlersFinished);
  if (resetRequested && stopReason === undefined) {
    // Start over: a new run with a fresh history, the same configuration and the queued input.
    metrics.continuedAsNew('reset');
    await continueAsNew<typeof agentWorkflow>({ snapshot: agent.resetSnapshot() });
  }
  return { stopped: true, reason: stopReason ?? 'stop requested', lastSeq: agent.state.lastSeq };
}

/**
 * What this run added to history passed the agent's budget (default 8 MiB), it took UPDATE_BUDGET updates,
 * or Temporal suggests a new
 * run and this one has done some work. Measured from the run's start, so a large carried state never
 * makes a fresh run continue again at once.
 */
function historyMonitor(agent: Agent, overUpdateBudget: () => boolean) {
  const start = workflowInfo();
  let steps = 0;
  const overBudget = () =>
    workflowInfo().historySize - start.historySize > (agent.config.historyBudgetBytes ?? DEFAULT_HISTORY_BUDGET_BYTES) || overUpdateBudget();
  return {
    /** Checked after each step. */
    tooLong() {
      steps++;
      return overBudget() || (workflowInfo().continueAsNewSuggested && steps >= 10);
    },
    /**
     * Checked while a timer runs, on every activation: what grows history then is input, so "some work"
     * is counted in events. Temporal reports the size as of the workflow task, so input arriving in the
     * same task counts from the next one.
     */
    tooLongWhileWaiting() {
      const info = workflowInfo();
      return overBudget() || (info.continueAsNewSuggested && info.historyLength - start.historyLength >= 500);
    },
  };
}

/**
 * Whether this run may continue as new with the agent's state. A state over the inline payload limit
 * needs a worker that offloads payloads: without one Temporal refuses the continue-as-new command and
 * terminates the agent. Then the agent stays in this run instead, and its status says why; its
 * workers are asked again every REASK_AFTER_EVENTS events, so turning offloading on lets it move on.
 */
const REASK_AFTER_EVENTS = 200;
function stateCarrier(agent: Agent, changed: (change: string) => boolean) {
  let refusal: string | undefined;
  let askedAt = 0;
  return {
    get refusal() {
      return refusal;
    },
    /** A refusal stands: not worth asking again yet. */
    get blocked() {
      return refusal !== undefined && workflowInfo().historyLength - askedAt < REASK_AFTER_EVENTS;
    },
    /** The state's JSON, checked as the new run would read it, when it can be carried; else undefined. */
    async canCarry(): Promise<string | undefined> {
      if (this.blocked) return undefined;
      const json = JSON.stringify(agent.toSnapshot());
      // The new run reads the state with the same checks as an import: never carry what it would refuse.
      // (Everything is checked as it enters the agent, so this is a last line of defence.)
      try {
        readSnapshot(JSON.parse(json));
      } catch (err) {
        askedAt = workflowInfo().historyLength;
        refusal = `The agent's state would not be readable in a new run (${(err as Error).message}), so it stays in this run. Export it and report this.`;
        log.error(refusal, { category: 'History' });
        return undefined;
      }
      const bytes = utf8Length(json);
      if (bytes <= MAX_INLINE_PAYLOAD_BYTES || !changed(STATE_SIZE_GUARD_PATCH)) return json;
      askedAt = workflowInfo().historyLength;
      if (decoded(await payloadLimits(), 'payloadLimits').offloading) {
        refusal = undefined;
        return json;
      }
      refusal =
        `The agent's state is ${(bytes / 1024 / 1024).toFixed(1)} MB, over Temporal's 2 MB payload limit, and its worker does not ` +
        'offload large payloads (LIVECONTEXT_OFFLOAD=0): it cannot continue as new, so it stays in this run, whose history ' +
        "keeps growing towards Temporal's limit. Turn offloading on for its workers.";
      log.warn(refusal, { category: 'History', bytes });
      return undefined;
    },
  };
}

/**
 * A start input that cannot make an agent fails the run at once (not a workflow task retried forever).
 * Except a carried state this worker cannot decode (a missing key or blob): that is the agent's own
 * data, so the task fails and is retried — perhaps by a worker that can — instead of ending the agent.
 */
function createAgent(input: AgentWorkflowInput, clock: () => number, changed: (change: string) => boolean): Agent {
  const undecodable = undecodableReason(input) ?? undecodableReason((input as { snapshot?: unknown })?.snapshot);
  if (undecodable !== undefined && workflowInfo().continuedFromExecutionRunId) {
    throw new InfrastructureError('UNDECODABLE_STATE', `This worker cannot decode the agent's carried state: ${undecodable}`);
  }
  try {
    if (input && 'snapshot' in input) {
      // Only continue-as-new, which workflow code alone can do, may say its snapshot was checked.
      const checked = input.checked === true && workflowInfo().continuedFromExecutionRunId !== undefined;
      return Agent.fromSnapshot(input.snapshot, clock, { imported: input.imported === true, checked, since: changed });
    }
    const agent = Agent.create({ config: AgentConfig.parse(input?.config), systemInstruction: input?.systemInstruction, clock });
    if (input?.initialInput !== undefined) agent.enqueueInput(input.initialInput, { since: changed });
    return agent;
  } catch (err) {
    throw ApplicationFailure.nonRetryable(`Cannot start the agent: ${(err as Error).message}`, 'BAD_START_INPUT');
  }
}

/**
 * An update validator whose refusals are final: the same input would be refused again, so the error
 * says so (`nonRetryable`), with the refusal's code as its type.
 */
function refusing<A>(validate: (arg: A) => void): (arg: A) => void {
  return (arg) => {
    try {
      validate(arg);
    } catch (err) {
      if (err instanceof LivecontextError) throw ApplicationFailure.create({ type: err.code, message: err.message, nonRetryable: true });
      throw err;
    }
  };
}

/** An activity result this worker could not decode is not the activity's answer: see InfrastructureError. */
function decoded<T>(result: T, what: string): T {
  const reason = undecodableReason(result);
  if (reason !== undefined) throw new InfrastructureError('UNDECODABLE_RESULT', `This worker cannot decode the result of ${what}: ${reason}`);
  return result;
}

/**
 * Keeps the agent's search attributes (run state, model, provider) current at its rest points — only
 * when it was started with them, so agents on namespaces without them (and old histories) never upsert.
 * Each write is a history event, and most turns are one model call: since LAZY_WORKING_PATCH an agent
 * woken by input is listed `Working` only once its turn goes past a step (tools, another model call), so
 * a plain turn writes nothing and stays listed `WaitingInput`. The `state` query is always exact.
 */
function searchAttributePublisher(agent: Agent, changed: (change: string) => boolean) {
  const enabled = workflowInfo().typedSearchAttributes.get(MODEL_ATTRIBUTE) !== undefined;
  let runState = 'Working';
  let last = '';
  let lazy = false; // woken by input, not yet listed Working
  return {
    /** After a rest on `outcome` ends. */
    woke(outcome: string) {
      lazy = outcome === 'BlockedOnInput' && changed(LAZY_WORKING_PATCH);
      if (!lazy) this.publish('Working');
    },
    /** After a step that made progress: listed Working once the turn is past its first model call. */
    progressed() {
      if (lazy && agent.runState !== AgentRunState.WaitingInput && agent.runState !== AgentRunState.PendingInput) {
        lazy = false;
        this.publish('Working');
      }
    },
    publish(state?: string) {
      if (!enabled) return;
      if (state) runState = restLabel(state);
      const model = agent.config.model;
      const values = [runState, model, model.split(':')[0]];
      if (values.join('|') === last) return;
      last = values.join('|');
      upsertSearchAttributes([
        { key: RUN_STATE_ATTRIBUTE, value: values[0] },
        { key: MODEL_ATTRIBUTE, value: values[1] },
        { key: PROVIDER_ATTRIBUTE, value: values[2] },
      ]);
    },
  };
}

/**
 * The cancellation scopes steps run in. A new scope per step cost as much worker time as the rest of a
 * plain turn's step (each makes promises the SDK traces, and links itself to the root scope for the
 * run's life), so a scope serves step after step while cancelling it could only reach the step in
 * flight: whatever an earlier step started has ended with it (activities, timers), and a cancel finds
 * nothing of theirs to cancel, so it issues the same commands a fresh scope would. A scope is replaced
 * once cancelled, after a step that started a child agent (which outlives the step: a later interrupt
 * must not cancel it), and every SCOPE_STEPS steps (each activity leaves a small handler on it).
 */
const SCOPE_STEPS = 100;
function stepScopes() {
  let current: CancellationScope | undefined;
  let used = 0;
  let childStarted = false;
  return {
    scope(): CancellationScope {
      childStarted = false;
      return (current ??= new CancellationScope());
    },
    childStarted(): void {
      childStarted = true;
    },
    done(scope: CancellationScope): void {
      if (scope.consideredCancelled || childStarted || ++used >= SCOPE_STEPS) {
        current = undefined;
        used = 0;
      }
    },
  };
}

function stepDeps(
  agent: Agent,
  changed: (change: string) => boolean,
  timers: { interrupt: () => boolean; onInterrupted: () => void; subAgentWaitEnds: () => boolean; childStarted: () => void },
): StepDeps {
  const { workflowId, runId } = workflowInfo();
  const feed = entryFeed(() => agent.state.entries);
  /** Why a sub-agent this run started ended without reporting, by its call's id. */
  const ended = new Map<string, string>();
  return {
    delegate: {
      async start(request) {
        // Deterministic and unique per call: the parent, the profile, the output's seq and the call's place in
        // it. Ids and the sender stay within MAX_DERIVED_ID_CHARS (shortened with a hash past it): a long
        // parent id made its children's first input invalid, and they never answered.
        const suffix = `--${request.profile}-${request.batchSeq}-${request.index + 1}`;
        const long = (id: string) => id.length > MAX_DERIVED_ID_CHARS && changed(SUB_AGENT_FAILURES_CHANGE);
        const childId = long(workflowId + suffix) ? shortenId(workflowId, suffix) : workflowId + suffix;
        const sender = long(workflowId) ? shortenId(workflowId) : workflowId;
        const config = { ...request.config, delegatedBy: { ...request.config.delegatedBy!, agentId: workflowId } };
        const input: AgentWorkflowInput = {
          config,
          initialInput: { text: request.task, sender },
          ...(request.systemInstruction ? { systemInstruction: request.systemInstruction } : {}),
        };
        // Abandoned, not ended, when this run closes: continue-as-new must not take the children with it.
        // Stopping or resetting the parent stops them explicitly (stopSubAgents).
        timers.childStarted();
        let child;
        try {
          child = await startChild(agentWorkflow, {
            workflowId: childId,
            args: [input],
            parentClosePolicy: ParentClosePolicy.ABANDON,
            staticSummary: `livecontext sub-agent ${request.profile} (${config.model})`,
          });
        } catch (err) {
          if (isCancellation(err)) throw new InfrastructureError(STEP_CANCELLED, 'The start of a sub-agent was cancelled.');
          // The agent turns it into the call's Failed result (see SUB_AGENT_FAILURES_CHANGE).
          if (err instanceof WorkflowExecutionAlreadyStartedError)
            throw new LivecontextError('SUB_AGENT_ID_TAKEN', `a workflow with the id ${childId} already runs`);
          throw err;
        }
        // A child that ends without reporting (it failed at start, or was terminated) will never answer: in
        // this run its end is seen here. (A child started by an earlier run reports by signal only.)
        child.result().then(
          () => ended.set(request.toolCallId, 'it ended without reporting'),
          (err: unknown) => ended.set(request.toolCallId, failureText(err)),
        );
        return childId;
      },
      async wait(toolCallId) {
        let endIgnored = false; // a history recorded before SUB_AGENT_FAILURES_CHANGE waited on
        for (;;) {
          await condition(
            () => agent.subAgentAnswered(toolCallId) || timers.subAgentWaitEnds() || timers.interrupt() || (ended.has(toolCallId) && !endIgnored),
          );
          if (agent.subAgentAnswered(toolCallId)) return true;
          if (timers.interrupt()) timers.onInterrupted();
          if (timers.subAgentWaitEnds() || timers.interrupt()) return false;
          const call = agent.runningSubAgents().find((c) => c.toolCallId === toolCallId);
          if (call && changed(SUB_AGENT_FAILURES_CHANGE)) {
            agent.recordSubAgentResult({
              toolCallId,
              agentId: call.agentId,
              status: 'Failed',
              text: `The sub-agent ${call.agentId} ended without an answer: ${ended.get(toolCallId)}.`.slice(0, 64 * 1024),
            });
            return true;
          }
          endIgnored = true;
        }
      },
    },
    async callModel(request) {
      feed.beforeModelCall(); // this worker's callModel then needs no entries query (no command, no history)
      // The summary makes the activity readable in the Web UI ("model openai:gpt-4.1-mini").
      const options = { ...DEFAULT_MODEL_ACTIVITY_OPTIONS, summary: `model ${request.model}` };
      const args = [{ ...request, agentId: workflowId, runId, routable: true }] as const;
      let result;
      try {
        result = await callModel.executeWithOptions(options, [...args]);
      } catch (err) {
        if (isCancellation(err)) throw new InfrastructureError(STEP_CANCELLED, 'The model call was cancelled.');
        if (!isRoutable(err) || !changed(MODEL_ROUTING_CHANGE)) throw toAgentFailure(err);
        // The worker that took it lacks the provider's key; one polling the provider's queue has it.
        const taskQueue = providerTaskQueue(workflowInfo().taskQueue, providerOf(request.model));
        try {
          result = await callModel.executeWithOptions({ ...options, taskQueue, scheduleToStartTimeout: ROUTED_START_TIMEOUT }, [...args]);
        } catch (routedErr) {
          if (isCancellation(routedErr)) throw new InfrastructureError(STEP_CANCELLED, 'The model call was cancelled.');
          throw notTaken(routedErr) ? notTakenFailure(toAgentFailure(err), taskQueue) : toAgentFailure(routedErr);
        }
      }
      return decoded(result, `a model call to ${request.model}`);
    },
    async sleep(ms) {
      if (!changed(TIMERS_CARRIED_PATCH)) {
        await sleep(ms); // histories recorded before the patch slept through everything
        return true;
      }
      const interrupted = await condition(timers.interrupt, ms);
      if (interrupted) timers.onInterrupted();
      return !interrupted;
    },
    async executeTool(call, options) {
      let result;
      try {
        result = await executeTool.executeWithOptions({ ...DEFAULT_TOOL_ACTIVITY_OPTIONS, summary: `tool ${call.toolName}` }, [
          {
            ...(options?.approved ? { approved: true } : {}),
            ...(options?.offered === false ? { offered: false } : {}),
            agentId: workflowId,
            runId,
            // The raw arguments only: the parsed copy is in the model output entry already, and the
            // activity parses the raw text again (the same way), so the arguments enter history once more, not twice.
            call: { toolName: call.toolName, toolCallId: call.toolCallId, rawArguments: call.rawArguments },
            idempotencyKey: `${workflowId}/${call.toolCallId}`,
            ...(agent.config.tools ? { allowedTools: agent.config.tools } : {}),
          },
        ]);
      } catch (err) {
        // Interrupted: not the tool's failure; the agent answers the call as interrupted.
        if (isCancellation(err)) throw new InfrastructureError(STEP_CANCELLED, `The tool ${call.toolName} was cancelled.`);
        const failure = toAgentFailure(err);
        return {
          toolCallId: call.toolCallId,
          toolName: call.toolName,
          status: 'Failed',
          result: `The tool ${call.toolName} did not complete: ${failure.message}`,
        };
      }
      return decoded(result, `the tool ${call.toolName}`);
    },
    since: changed,
    // Category-tagged debug messages; the worker's logger shows the categories in LIVECONTEXT_DEBUG.
    log(category, message, attributes) {
      log.debug(message, { category, ...attributes });
    },
  };
}

/** The innermost message of a child workflow's failure ("Cannot start the agent: …", "Workflow execution terminated"). */
function failureText(err: unknown): string {
  let cause: unknown = err;
  while (cause instanceof Error && (cause as { cause?: unknown }).cause instanceof Error) cause = (cause as { cause: unknown }).cause;
  return cause instanceof Error ? cause.message : String(cause);
}

/** What the step's activities throw when an interrupt cancelled them (not recorded as their failure). */
const STEP_CANCELLED = 'STEP_CANCELLED';

/** Activity failures arrive wrapped; the agent records the innermost application error's type and message. */
function toAgentFailure(err: unknown): LivecontextError {
  let cause: unknown = err;
  while (cause instanceof ActivityFailure && cause.cause) cause = cause.cause;
  if (cause instanceof ApplicationFailure) {
    return new LivecontextError(cause.type ?? 'ACTIVITY_FAILED', cause.message);
  }
  return new LivecontextError('ACTIVITY_FAILED', cause instanceof Error ? cause.message : String(cause));
}

/** Whether raw input names an idempotency key (before it is parsed). */
function hasIdempotencyKey(raw: unknown): boolean {
  return typeof raw === 'object' && raw !== null && typeof (raw as { idempotencyKey?: unknown }).idempotencyKey === 'string';
}
