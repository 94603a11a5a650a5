/**
 * The agent as seed 004's state machine: history, pending tool results, the input inbox and config.
 * `doStep()` does exactly one unit of work for the current run state. Pure: no I/O, no clock or
 * randomness of its own; model calls and tool runs are injected through StepDeps.
 */
import { AgentState, type Clock } from './agent-state';
import { AgentConfig, ConfigChange } from './agent-config';
import { type AgentStatus, addUsage, usageTotals, withCacheHitRatio } from './agent-status';
import { type ArchivedPointState, MAX_ARCHIVED_REWINDS, type SegmentRef, archivedRewound } from './archive';
import type { HistoryEntry, JsonValue, ModelInputEntry, ModelOutputEntry, ToolCallRequest, ToolCallResult, TurnEndEntry, WidgetWriteEntry } from './entries';
import { repairModelOutput, repairToolResult } from './entry-repair';
import { InputRejectedError } from './errors';
import { IDEMPOTENCY_KEYS_KEPT, isBlank, parseInput, type InboxItem } from './input';
import { inputFingerprint } from './input-fingerprint';
import { AgentRunState, determineState } from './run-state';
import {
  type AcceptedKey,
  type AgentSnapshot,
  type ApprovalState,
  ARCHIVED_SNAPSHOT_VERSION,
  SNAPSHOT_FORMAT,
  SNAPSHOT_VERSION,
  type TimerState,
} from './snapshot';
import { readCheckedSnapshot, readSnapshot } from './snapshot-check';
import type { AgentError, StepDeps, StepOutcome } from './step-io';
import { type ToolDecision, parseToolDecision } from './tool-decision';
import type { ToolCatalog } from './tool-spec';
import { runModelStep } from './model-step';
import { ALL_QUESTIONS_CHANGE, ASK_USER_TOOL, numberedQuestions } from './ask-user';
import { EXPORT_SETTLES_SUB_AGENTS_CHANGE, type SubAgentCall, SubAgentResult, settledOnImport } from './sub-agents';
import { BUDGETS_CHANGE, budgetHit, isBudgetCode } from './budgets';
import { MAX_REFUSED_ATTACHMENTS, type RefusedAttachment, suspectAttachments } from './refused-attachments';
import { runToolStep, runnableBatch } from './tool-step';
import { type EffectRecord, type ToolCallResolution, checkResolution, parseToolCallResolution, resolveEffect, unknownCalls } from './effect-ledger';
import {
  type MemoryNotebookWidget,
  type TaskListWidget,
  type Widget,
  type WidgetToolResult,
  createWidgets,
  rebuildWidgets,
  widgetStates,
} from './widgets/index';
import { type RewindResult, parseRewindRequest, type RewindRequest } from './rewind';
import { travelPoint } from './time-travel';
import { type ToolRule, type ToolRulesChange, parseToolRulesChange, rememberAllow } from './tool-rules';
import { type A2aPushChange, type A2aPushConfig, type A2aPushDelivery, applyA2aPushChange, checkA2aPushChange, duePushes } from './a2a-push';
import { type Elicitation, Elicitations, OpenElicitation, checkElicitContent, checkRequestedSchema } from './elicitations';
import { type OpenWait, type WaitAnswer, type WaitAnswerRecord, type WaitAnswered, alreadyAnswered, parseWaitAnswer, waitIdOf } from './waits';

/**
 * A model output with more tool calls than this is not run at all: the batch gets an ExecuteError
 * (seed 000) telling the model to call fewer at once. No model asks for this many on purpose; a broken
 * or hostile one could otherwise schedule thousands of tool runs.
 */
export const MAX_TOOL_CALLS_PER_BATCH = 128;
/** Since this change an over-large batch is refused with an ExecuteError instead of run. */
export const BATCH_LIMIT_CHANGE = 'tool-batch-limit';
/**
 * Since this change an idempotency key is kept with the fingerprint of its input, so that the key used
 * again for another input is refused instead of answered as a redelivery (see checkInput).
 */
export const IDEMPOTENCY_PRINTS_CHANGE = 'idempotency-key-fingerprints';

/** What became of one accepted input, for clients waiting on it. */
export type TurnOutcome =
  | { inputSeq: number; status: 'answered'; answer: ModelOutputEntry; inputEntrySeq: number }
  | { inputSeq: number; status: 'ignored'; reason: string }
  | { inputSeq: number; status: 'error'; error: AgentError }
  | { inputSeq: number; status: 'stopped' }
  | { inputSeq: number; status: 'reset' }
  /** The turn ended without an answer: a person interrupted it. */
  | { inputSeq: number; status: 'interrupted'; by?: string }
  /** The turn ended with a question for the person (`ask_user`); the reply is the next input. */
  | { inputSeq: number; status: 'asked'; question: string; /** The question's wait (answerWait), first answer wins. */ waitId?: string }
  /** The agent moved to a new run (continue-as-new) before answering: ask the new run. */
  | { inputSeq: number; status: 'continued' }
  /** The turn ended long ago and its entries are archived: `history` reads them. */
  | { inputSeq: number; status: 'archived' };

export class Agent {
  private pendingResults: ToolCallResult[];
  private readonly inboxItems: InboxItem[];
  private nextInputSeqValue: number;
  private consumedInputSeqValue: number;
  private lastErrorValue: AgentError | undefined;
  private approvalsValue: Record<string, ApprovalState>;
  private timersValue: Record<string, TimerState>;
  private subAgentCallsValue: Record<string, SubAgentCall>;
  /** The effect ledger of the current batch's activity calls (effect-ledger.ts). */
  private effectsValue: Record<string, EffectRecord>;
  private readonly resetAfterInputSeq: number | undefined;
  /**
   * Idempotency keys of accepted inputs with their input numbers and (since IDEMPOTENCY_PRINTS_CHANGE)
   * the fingerprints of the inputs, oldest first (see AgentInput).
   */
  private readonly acceptedKeys: AcceptedKey[];
  /** MCP servers' tools as the agent's model calls discovered them (see ToolCatalog). */
  private toolCatalogValue: ToolCatalog | undefined;
  /** Entries up to here no longer count against budgets (a retry of a hit budget granted more). */
  private budgetFromSeq: number;
  /** Attachments a provider refused for good: later model calls leave them out (see refused-attachments). */
  private refusedAttachmentsValue: RefusedAttachment[];
  /** MCP servers' questions during the current calls (elicitations.ts); in memory, rebuilt by replay. */
  private readonly elicitationsValue = new Elicitations();
  /** The agent's widgets (seed 003, from the widget registry); their tools run inside the workflow. */
  private widgetsValue: readonly Widget[];

  private constructor(
    readonly state: AgentState,
    public config: AgentConfig,
    private readonly clock: Clock,
    rest: Pick<
      AgentSnapshot,
      | 'pendingToolResults'
      | 'inbox'
      | 'nextInputSeq'
      | 'consumedInputSeq'
      | 'lastError'
      | 'widgets'
      | 'approvals'
      | 'timers'
      | 'resetAfterInputSeq'
      | 'toolCatalog'
      | 'acceptedKeys'
      | 'budgetFromSeq'
      | 'subAgentCalls'
      | 'refusedAttachments'
      | 'effects'
    >,
  ) {
    this.resetAfterInputSeq = rest.resetAfterInputSeq;
    this.toolCatalogValue = rest.toolCatalog;
    this.budgetFromSeq = rest.budgetFromSeq ?? 0;
    this.refusedAttachmentsValue = (rest.refusedAttachments ?? []).map((r) => ({ ...r }));
    this.acceptedKeys = (rest.acceptedKeys ?? []).map((k): AcceptedKey => [...k]);
    this.approvalsValue = { ...rest.approvals };
    this.timersValue = { ...rest.timers };
    this.subAgentCallsValue = copySubAgentCalls(rest.subAgentCalls);
    this.effectsValue = copyEffects(rest.effects);
    this.widgetsValue = createWidgets(rest.widgets);
    this.pendingResults = [...rest.pendingToolResults];
    this.inboxItems = [...rest.inbox];
    this.nextInputSeqValue = rest.nextInputSeq;
    this.consumedInputSeqValue = rest.consumedInputSeq;
    this.lastErrorValue = rest.lastError;
  }

  static create(options: { config: AgentConfig; systemInstruction?: string; clock: Clock }): Agent {
    const agent = new Agent(new AgentState(options.clock), options.config, options.clock, {
      pendingToolResults: [],
      inbox: [],
      nextInputSeq: 1,
      consumedInputSeq: 0,
      widgets: { memory_notebook: { content: '' } },
      approvals: {},
    });
    if (options.systemInstruction) agent.state.setSystemInstruction(options.systemInstruction);
    return agent;
  }

  /**
   * Seed 004 `FromSnapshot`: the snapshot is validated (schema and invariants, see readSnapshot);
   * runtime dependencies come from the caller. An `imported` snapshot's approvals are not taken as
   * given: the calls waiting for a decision are asked about again on the agent's new cluster. A
   * `checked` snapshot was read with the same checks by the run that carried it (see readCheckedSnapshot).
   */
  static fromSnapshot(raw: unknown, clock: Clock, options: { imported?: boolean; checked?: boolean; since?: (change: string) => boolean } = {}): Agent {
    const snapshot = options.checked ? readCheckedSnapshot(raw) : readSnapshot(raw);
    const state = new AgentState(clock, { entries: snapshot.entries, nextSeq: snapshot.nextSeq, ...(snapshot.archive ? { archive: snapshot.archive } : {}) });
    if (!options.imported) return new Agent(state, snapshot.config, clock, snapshot);
    // A sub-agent that was working at export answers the original, never the copy: its call is answered
    // Failed here (the patch asked only when there is one), so the copy moves on.
    const inFlight = Object.values(snapshot.subAgentCalls ?? {}).some((c) => !c.result);
    const subAgentCalls =
      inFlight && (options.since?.(EXPORT_SETTLES_SUB_AGENTS_CHANGE) ?? true) ? settledOnImport(snapshot.subAgentCalls!) : snapshot.subAgentCalls;
    return new Agent(state, snapshot.config, clock, { ...snapshot, approvals: {}, ...(subAgentCalls ? { subAgentCalls } : {}) });
  }

  /** The whole agent as versioned JSON: history, pending results, inbox, config, blocking error. */
  toSnapshot(): AgentSnapshot {
    return {
      format: SNAPSHOT_FORMAT,
      version: this.state.archive ? ARCHIVED_SNAPSHOT_VERSION : SNAPSHOT_VERSION,
      config: this.config,
      entries: [...this.state.entries],
      // Only once entries were archived, so snapshots of other agents stay as they were.
      ...(this.state.archive ? { archive: this.state.archive } : {}),
      nextSeq: this.state.nextSeq,
      pendingToolResults: [...this.pendingResults],
      inbox: [...this.inboxItems],
      nextInputSeq: this.nextInputSeqValue,
      consumedInputSeq: this.consumedInputSeqValue,
      approvals: { ...this.approvalsValue },
      // Only when a timer runs, so snapshots (and histories) of agents that never sleep stay as they were.
      ...(Object.keys(this.timersValue).length ? { timers: { ...this.timersValue } } : {}),
      // Only while sub-agents work for the current batch, so other snapshots stay as they were.
      ...(Object.keys(this.subAgentCallsValue).length ? { subAgentCalls: copySubAgentCalls(this.subAgentCallsValue) } : {}),
      // Only while the batch has activity calls, so other snapshots stay as they were.
      ...(Object.keys(this.effectsValue).length ? { effects: copyEffects(this.effectsValue) } : {}),
      widgets: widgetStates(this.widgets) as AgentSnapshot['widgets'],
      ...(this.lastErrorValue ? { lastError: this.lastErrorValue } : {}),
      ...(this.resetAfterInputSeq !== undefined ? { resetAfterInputSeq: this.resetAfterInputSeq } : {}),
      // Only once a model call found MCP tools, so snapshots of other agents stay as they were.
      ...(this.toolCatalogValue ? { toolCatalog: this.toolCatalogValue } : {}),
      // Only once an input came with a key, so snapshots of other agents stay as they were.
      ...(this.acceptedKeys.length ? { acceptedKeys: this.acceptedKeys.map((k): AcceptedKey => [...k]) } : {}),
      // Only once a retry granted more budget, so snapshots of other agents stay as they were.
      ...(this.budgetFromSeq > 0 ? { budgetFromSeq: this.budgetFromSeq } : {}),
      // Only once a provider refused an attachment, so snapshots of other agents stay as they were.
      ...(this.refusedAttachmentsValue.length ? { refusedAttachments: this.refusedAttachmentsValue.map((r) => ({ ...r })) } : {}),
    };
  }

  /**
   * The oldest working entries are sealed into the segment `ref` (written by an activity): they leave the
   * working set, and the archive's index carries what later entries build on (see AgentState.sealed).
   */
  archiveSealed(ref: SegmentRef, folded?: { segments: readonly SegmentRef[]; manifestKey: string }): void {
    this.state.sealed(ref, this.budgetFromSeq, folded);
  }

  /** Attachments a provider refused for good, left out of later model calls. */
  get refusedAttachments(): readonly RefusedAttachment[] {
    return this.refusedAttachmentsValue;
  }

  /** The MCP tools the agent's model calls were last offered (see ToolCatalog), if any. */
  get toolCatalog(): ToolCatalog | undefined {
    return this.toolCatalogValue;
  }

  /**
   * The snapshot of this agent started over: empty history but for the system instruction, same
   * configuration, queued input kept (and its numbering), no widget state.
   */
  resetSnapshot(): AgentSnapshot {
    const fresh = Agent.create({ config: this.config, systemInstruction: this.state.systemInstruction, clock: this.clock });
    return {
      ...fresh.toSnapshot(),
      inbox: [...this.inboxItems],
      nextInputSeq: this.nextInputSeqValue,
      consumedInputSeq: this.consumedInputSeqValue,
      // A redelivery after the reset is still the input it was.
      ...(this.acceptedKeys.length ? { acceptedKeys: this.acceptedKeys.map((k): AcceptedKey => [...k]) } : {}),
      // Inputs up to here were taken before the reset: waiting for one of them says so.
      ...(this.consumedInputSeqValue > 0 ? { resetAfterInputSeq: this.consumedInputSeqValue } : {}),
    };
  }

  /** Sub-agents working for the current batch (no result yet): the ones to stop if this agent stops. */
  runningSubAgents(): Array<{ toolCallId: string; agentId: string }> {
    return Object.entries(this.subAgentCallsValue)
      .filter(([, c]) => !c.result && c.agentId)
      .map(([toolCallId, c]) => ({ toolCallId, agentId: c.agentId }));
  }

  /** A sub-agent's outcome (the `subAgentResult` signal); throws InputRejectedError unless it answers a call in flight. */
  recordSubAgentResult(raw: unknown): SubAgentResult {
    const parsed = SubAgentResult.safeParse(raw);
    if (!parsed.success) throw new InputRejectedError('BAD_SUB_AGENT_RESULT', parsed.error.issues.map((i) => `${i.path.join('.')}: ${i.message}`).join('; '));
    const call = this.subAgentCallsValue[parsed.data.toolCallId];
    if (!call || call.agentId !== parsed.data.agentId || call.result) {
      throw new InputRejectedError('UNKNOWN_SUB_AGENT_CALL', `No sub-agent call ${parsed.data.toolCallId} of ${parsed.data.agentId} waits for a result.`);
    }
    call.result = { status: parsed.data.status, text: parsed.data.text };
    return parsed.data;
  }

  /** Whether the sub-agent call `toolCallId` has its result. */
  subAgentAnswered(toolCallId: string): boolean {
    return !!this.subAgentCallsValue[toolCallId]?.result;
  }

  /** The agent's widgets (seed 003, from the widget registry); their tools run inside the workflow. */
  get widgets(): readonly Widget[] {
    return this.widgetsValue;
  }

  /**
   * Whether the agent may rewind now, and to `toSeq`: throws InputRejectedError saying why not. At rest
   * only — waiting for input, blocked on an error, or waiting for approvals with nothing run yet in the
   * batch; a point in the working set (not archived), valid (travelPoint).
   */
  checkRewind(raw: unknown, options: { archived?: boolean } = {}): RewindRequest {
    const request = parseRewindRequest(raw);
    const runState = this.runState;
    const atRest =
      runState === AgentRunState.WaitingInput ||
      !!this.lastErrorValue ||
      (runState === AgentRunState.WaitingToolResults &&
        this.pendingResults.length === 0 &&
        this.awaitingApproval().length > 0 &&
        runnableBatch(this.config, this.pendingToolCalls(), this.approvalsValue, this.effectsValue).length === 0 &&
        !Object.keys(this.timersValue).length &&
        !Object.keys(this.subAgentCallsValue).length &&
        !Object.keys(this.effectsValue).length);
    if (!atRest) {
      throw new InputRejectedError(
        'AGENT_WORKING',
        `The agent is working (${runState}): a rewind is made at rest. Interrupt the turn first (livecontext interrupt), then rewind.`,
      );
    }
    const archive = this.state.archive;
    if (archive && request.toSeq >= 1 && request.toSeq <= archive.throughSeq) {
      // Whether the archived entry is a valid point is checked where the segment is read (the rewindPoint activity).
      if (archivedRewound(archive, request.toSeq)) {
        throw new InputRejectedError('BAD_REWIND_POINT', `Entry #${request.toSeq} was rewound by an earlier rewind: it is no longer in force.`);
      }
      if (!options.archived || (archive.rewound?.length ?? 0) >= MAX_ARCHIVED_REWINDS) {
        throw new InputRejectedError(
          'REWIND_ARCHIVED',
          `Entry #${request.toSeq} is archived (entries up to #${archive.throughSeq} are sealed)${options.archived ? ` and this agent has rewound into its archive ${MAX_ARCHIVED_REWINDS} times` : ''}: a rewind goes back to an entry of the working set (#${archive.throughSeq + 1} on). Fork the agent at #${request.toSeq} instead.`,
        );
      }
      return request;
    }
    const point = travelPoint(this.state.entries, request.toSeq);
    if (!point.ok) throw new InputRejectedError('BAD_REWIND_POINT', point.reason);
    return request;
  }

  /**
   * Goes back to `toSeq` (checked as checkRewind does): a rewind entry is appended; the entries between
   * leave what is in force (the model's context, the widgets, the budgets, the instruction); the batch
   * in progress (pending results, approvals) and a blocking error are dropped; the inbox is kept.
   */
  rewind(raw: unknown, archived?: ArchivedPointState): RewindResult {
    const { toSeq, by, reason } = this.checkRewind(raw, { archived: !!archived });
    const before = this.state.visible.length;
    // To an archived entry: the archive's index takes the state at toSeq (read from its segment by an activity).
    const archivedOut = archived && this.state.archive && toSeq <= this.state.archive.throughSeq ? this.state.archive.throughSeq - toSeq : 0;
    if (archived && archivedOut >= 0 && this.state.archive && toSeq <= this.state.archive.throughSeq) this.state.rewindArchive(toSeq, archived);
    const entry = this.state.appendRewind({ toSeq, ...(by !== undefined ? { by } : {}), ...(reason !== undefined ? { reason } : {}) });
    this.pendingResults = [];
    this.approvalsValue = {};
    this.timersValue = {};
    this.subAgentCallsValue = {};
    this.effectsValue = {};
    this.lastErrorValue = undefined;
    // The widgets as they were at toSeq, from the entries in force after the archive's state.
    this.widgetsValue = createWidgets(widgetStates(rebuildWidgets(this.state.visible, toSeq, this.state.archive?.widgets)));
    return { seq: entry.seq, toSeq, runState: this.runState, rewound: archivedOut + before + 1 - this.state.visible.length };
  }

  /** Whether a rewind request goes back to an archived entry (its state is then read by an activity first). */
  rewindsIntoArchive(raw: unknown): boolean {
    const toSeq = (raw as { toSeq?: unknown } | undefined)?.toSeq;
    const archive = this.state.archive;
    return !!archive && typeof toSeq === 'number' && toSeq >= 1 && toSeq <= archive.throughSeq;
  }

  /** Entries up to this seq no longer count against day budgets (a retry granted more). */
  get budgetStartSeq(): number {
    return this.budgetFromSeq;
  }

  /** The memory notebook widget. */
  get notebook(): MemoryNotebookWidget {
    return this.widget('memory_notebook') as MemoryNotebookWidget;
  }

  /** The task list widget. */
  get taskList(): TaskListWidget {
    return this.widget('task_list') as TaskListWidget;
  }

  private widget(name: string): Widget {
    const widget = this.widgets.find((w) => w.name === name);
    if (!widget) throw new InputRejectedError('UNKNOWN_WIDGET', `This agent has no widget "${name}".`);
    return widget;
  }

  get runState(): AgentRunState {
    // Seed 004: after tool results (or an input) the agent may decide to wait for new input instead.
    if (this.state.turnEnded()) return AgentRunState.WaitingInput;
    return determineState(this.state.lastContextual(), this.pendingResults);
  }

  get inbox(): readonly InboxItem[] {
    return this.inboxItems;
  }

  get pendingToolResults(): readonly ToolCallResult[] {
    return this.pendingResults;
  }

  get lastError(): AgentError | undefined {
    return this.lastErrorValue;
  }

  /**
   * A model call has failed or is under way: only such a call is tried again. A retry asked while the
   * agent is idle or runs tools would stay armed and retry its next error at once, unasked.
   */
  modelCallAtStake(): boolean {
    return !!this.lastErrorValue || this.runState === AgentRunState.PendingInput || this.runState === AgentRunState.PendingToolResults;
  }

  /** The number the next accepted input gets. */
  get nextInputSeq(): number {
    return this.nextInputSeqValue;
  }

  get consumedInputSeq(): number {
    return this.consumedInputSeqValue;
  }

  /** Tool calls of the last output that have no result yet, in call order. */
  pendingToolCalls(): ToolCallRequest[] {
    const last = this.state.lastContextual();
    if (!last || last.kind !== 'model_output') return [];
    return last.toolCalls.filter((c) => !this.pendingResults.some((r) => r.toolCallId === c.toolCallId));
  }

  /**
   * Accepts input into the inbox (validated; throws InputRejectedError). Blank input is accepted and
   * dropped when pulled, as seed 004 says, so order and numbering stay exactly as sent.
   */
  enqueueInput(raw: unknown, options: { fingerprint?: boolean; since?: (change: string) => boolean } = {}): { inputSeq: number; duplicate?: true } {
    const parsed = parseInput(raw, options.since);
    const { sections, sender, attachments, idempotencyKey, responseSchema } = parsed;
    if (idempotencyKey !== undefined) {
      const earlier = this.acceptedKeys.find(([key]) => key === idempotencyKey);
      if (earlier) return { inputSeq: earlier[1], duplicate: true }; // a redelivery: taken once already
    }
    const inputSeq = this.nextInputSeqValue++;
    if (idempotencyKey !== undefined) {
      this.acceptedKeys.push(options.fingerprint ? [idempotencyKey, inputSeq, inputFingerprint(parsed)] : [idempotencyKey, inputSeq]);
      if (this.acceptedKeys.length > IDEMPOTENCY_KEYS_KEPT) this.acceptedKeys.shift();
    }
    const item: InboxItem = { inputSeq, sections, receivedAt: new Date(this.clock()).toISOString() };
    if (sender !== undefined) item.sender = sender;
    if (attachments !== undefined) item.attachments = attachments;
    if (responseSchema !== undefined) item.responseSchema = responseSchema;
    this.inboxItems.push(item);
    return { inputSeq };
  }

  /**
   * The checks enqueueInput makes, without taking the input (for an update's validator), and one more: an
   * idempotency key taken before for another input is refused (`IDEMPOTENCY_KEY_REUSED`) rather than
   * answered as a redelivery. Throws InputRejectedError.
   */
  checkInput(raw: unknown): void {
    const parsed = parseInput(raw);
    if (parsed.idempotencyKey === undefined) return;
    const earlier = this.acceptedKeys.find(([key]) => key === parsed.idempotencyKey);
    if (earlier?.[2] !== undefined && earlier[2] !== inputFingerprint(parsed)) {
      throw new InputRejectedError(
        'IDEMPOTENCY_KEY_REUSED',
        `The idempotency key ${JSON.stringify(parsed.idempotencyKey)} was taken before, as input #${earlier[1]}, for a different input: a redelivery must send the same input; new input needs a new key.`,
      );
    }
  }

  /** Validates a configuration change without applying it; throws InputRejectedError('BAD_CONFIG'). */
  checkConfigChange(raw: unknown): ConfigChange {
    const parsed = ConfigChange.safeParse(raw);
    if (!parsed.success) {
      throw new InputRejectedError('BAD_CONFIG', parsed.error.issues.map((i) => `${i.path.join('.') || 'change'}: ${i.message}`).join('; '));
    }
    return parsed.data;
  }

  /**
   * Applies a configuration change. A new system instruction is recorded in history, so every later
   * model call (and every replay) renders the instruction in force.
   */
  configure(raw: unknown): void {
    const { systemInstruction, ...rest } = this.checkConfigChange(raw);
    this.config = { ...this.config, ...rest };
    if (systemInstruction !== undefined && systemInstruction !== this.state.systemInstruction) this.state.setSystemInstruction(systemInstruction);
  }

  /** Validates a host write to a widget without applying it (for an update's validator); throws InputRejectedError. */
  checkWidgetWrite(widgetName: string, write: unknown): void {
    const widget = this.widget(widgetName);
    if (!widget.applyHostWrite) throw new InputRejectedError('WIDGET_NOT_WRITABLE', `The ${widgetName} widget takes no writes from the host.`);
    const trial = createWidgets({ [widgetName]: widget.toJSON() }).find((w) => w.name === widgetName)!;
    const out = trial.applyHostWrite!(write);
    if (out.status !== 'Success') throw new InputRejectedError('BAD_WIDGET_WRITE', out.result);
  }

  /**
   * A write by the host (a person or a service) to a widget, e.g. the notebook (seed 000
   * `UpdateMemoryNotebook`). Recorded in history as a `widget_write` entry, so the widget is still
   * rebuilt from history alone; the model sees the change in its next Live Screen.
   */
  writeWidget(widgetName: string, write: JsonValue, by?: string): { entry: WidgetWriteEntry; outcome: WidgetToolResult } {
    this.checkWidgetWrite(widgetName, write);
    const outcome = this.widget(widgetName).applyHostWrite!(write);
    const entry = this.state.appendWidgetWrite({ widget: widgetName, write, ...(by !== undefined ? { by } : {}) });
    return { entry, outcome };
  }

  /** The agent's status for the `state` query; `stopping` and `warning` are the host's to say. */
  status(host: { stopping: boolean; warning?: string }): AgentStatus {
    const runState = this.runState;
    const awaiting = this.awaitingApproval();
    const unknown = this.unknownOutcomes();
    const canRunNow = runnableBatch(this.config, this.pendingToolCalls(), this.approvalsValue, this.effectsValue).length > 0;
    const waits = this.waits();
    return {
      runState,
      blockedOn: this.lastErrorValue
        ? 'error'
        : runState === AgentRunState.WaitingInput && this.inboxItems.length === 0
          ? 'input'
          : awaiting.length > 0 && !canRunNow
            ? 'approval'
            : unknown.length > 0 && !canRunNow
              ? 'unknown_outcome'
              : null,
      awaitingApproval: awaiting.map((a) => ({
        toolCallId: a.call.toolCallId,
        toolName: a.call.toolName,
        arguments: a.call.rawArguments,
        reason: a.reason,
        requestedAt: a.requestedAt,
      })),
      // Only while the agent waits on something from outside (waits.ts), so other states read as they did.
      ...(waits.length ? { waits } : {}),
      // Only when a call's outcome is unknown, so other states read as they did.
      ...(unknown.length ? { unknownOutcomes: unknown } : {}),
      ...(Object.keys(this.effectsValue).length ? { effects: Object.entries(this.effectsValue).map(([toolCallId, e]) => ({ toolCallId, ...e })) } : {}),
      config: this.config,
      systemInstruction: this.state.systemInstruction,
      notebook: this.notebook.content,
      tasks: this.taskList.tasks.map((t) => ({ ...t })),
      ...(this.toolCatalogValue ? { mcpTools: this.toolCatalogValue.tools.map((t) => t.name) } : {}),
      ...(Object.keys(this.subAgentCallsValue).length
        ? {
            subAgents: Object.entries(this.subAgentCallsValue).map(([toolCallId, c]) => ({
              toolCallId,
              agentId: c.agentId,
              profile: c.profile,
              startedAt: c.startedAt,
              status: c.result?.status ?? 'Running',
            })),
          }
        : {}),
      ...(this.config.delegatedBy ? { delegatedBy: this.config.delegatedBy } : {}),
      entryCount: this.state.entryCount,
      lastSeq: this.state.lastSeq,
      inboxLength: this.inboxItems.length,
      nextInputSeq: this.nextInputSeqValue,
      consumedInputSeq: this.consumedInputSeqValue,
      pendingToolCalls: this.pendingToolCalls(),
      pendingToolResultCount: this.pendingResults.length,
      lastError: this.lastErrorValue ?? null,
      usage: withCacheHitRatio(this.state.archive ? addUsage(usageTotals(this.state.entries), this.state.archive.usage) : usageTotals(this.state.entries)),
      stopping: host.stopping,
      warning: host.warning ?? unpricedCostBudget(this.config, this.state.entries) ?? null,
    };
  }

  /** Forget a blocking error so the next doStep tries again (after a fix, or an explicit retry). */
  clearError(): void {
    this.lastErrorValue = undefined;
  }

  /**
   * An explicit retry: when the agent stopped on a budget, what it used so far no longer counts, so it
   * may use as much again from here. Otherwise nothing (the caller clears the error).
   */
  grantBudget(): void {
    if (isBudgetCode(this.lastErrorValue?.code)) this.budgetFromSeq = this.state.lastSeq;
  }

  /**
   * Ends the running turn without an answer, at the host's request: the agent waits for new input
   * (seed 004). Call it once the step in flight has stopped (its activities cancelled). Tool calls that
   * finished keep their results; the others are answered `Skipped`, so the history stays valid for every
   * provider. False when there was nothing to interrupt (the agent already waited for input).
   */
  interrupt(by?: string): boolean {
    const runState = this.runState;
    if (runState === AgentRunState.WaitingInput) return false;
    this.lastErrorValue = undefined;
    if (runState === AgentRunState.WaitingToolResults || runState === AgentRunState.ToolResultsReady) {
      const last = this.state.lastContextual() as ModelOutputEntry;
      const results = last.toolCalls.map(
        (c) =>
          this.pendingResults.find((r) => r.toolCallId === c.toolCallId) ?? {
            toolCallId: c.toolCallId,
            toolName: c.toolName,
            status: 'Skipped' as const,
            result: `Interrupted by ${by ?? 'the user'} before it completed; it may have done part of its work.`,
          },
      );
      this.state.appendToolResults({ results });
      this.pendingResults = [];
      this.approvalsValue = {};
      this.timersValue = {};
      this.subAgentCallsValue = {};
      this.effectsValue = {};
    }
    this.state.appendTurnEnd({ reason: 'interrupted', ...(by !== undefined ? { by } : {}) });
    return true;
  }

  /**
   * An interrupt aimed at input `inputSeq`'s turn (a protocol task is one turn): refused unless that turn
   * is the one running, so a cancel that races the turn's end never cuts the next turn short.
   */
  checkInterrupt(inputSeq: number | undefined): void {
    if (inputSeq === undefined) return;
    if (!Number.isInteger(inputSeq) || inputSeq < 1)
      throw new InputRejectedError('BAD_INPUT_SEQ', `inputSeq must be a positive integer (got ${String(inputSeq)}).`);
    if (inputSeq >= this.nextInputSeqValue) throw new InputRejectedError('NOT_RUNNING', `Input #${inputSeq} is not running: the agent has not received it.`);
    if (inputSeq > this.consumedInputSeqValue) {
      throw new InputRejectedError('NOT_RUNNING', `Input #${inputSeq} is not running: it is still queued behind input #${this.consumedInputSeqValue}'s turn.`);
    }
    const outcome = this.turnOutcome(inputSeq);
    if (outcome && outcome.status !== 'error')
      throw new InputRejectedError('NOT_RUNNING', `Input #${inputSeq}'s turn is over (${outcome.status}); nothing was interrupted.`);
  }

  /** One unit of work for the current state (seed 004 `DoStep()`). */
  async doStep(deps: StepDeps): Promise<StepOutcome> {
    const before = this.runState;
    const outcome = await this.step(before, deps);
    const after = this.runState;
    if (after !== before) deps.log?.('StateMachine', `[StateMachine] ${before}->${after}`);
    return outcome;
  }

  private async step(runState: AgentRunState, deps: StepDeps): Promise<StepOutcome> {
    switch (runState) {
      case AgentRunState.WaitingInput: {
        const item = this.inboxItems.shift();
        if (!item) return 'BlockedOnInput';
        this.consumedInputSeqValue = item.inputSeq;
        if (isBlank(item.sections)) {
          deps.log?.('History', `dropped blank input #${item.inputSeq}`);
          return 'BlockedOnInput';
        }
        const entry = this.state.appendModelInput({
          sections: item.sections,
          inputSeq: item.inputSeq,
          ...(item.sender !== undefined ? { sender: item.sender } : {}),
          ...(item.attachments !== undefined ? { attachments: item.attachments } : {}),
          ...(item.responseSchema !== undefined ? { responseSchema: item.responseSchema } : {}),
          ...(item.answers !== undefined ? { answers: item.answers } : {}),
        });
        deps.log?.('History', `appended model_input #${entry.seq} (input #${item.inputSeq})`);
        return 'ProgressMade';
      }
      case AgentRunState.PendingInput:
      case AgentRunState.PendingToolResults: {
        // A safe point: nothing runs. The patch is asked only when a budget is hit, so its marker is
        // written only into histories where one is.
        const archive = this.state.archive;
        const archivedDay = archive?.day && archive.throughSeq > this.budgetFromSeq ? archive.day : undefined;
        const hit = budgetHit(this.state.visible, this.config.budgets, this.budgetFromSeq, this.clock(), archivedDay);
        if (hit && (deps.since?.(BUDGETS_CHANGE) ?? true)) {
          this.lastErrorValue = { ...hit, runState, at: new Date(this.clock()).toISOString() };
          deps.log?.('StateMachine', `stopped by a budget: ${hit.message}`);
          return 'BlockedOnError';
        }
        const state = this.state;
        return runModelStep(
          {
            config: this.config,
            get uptoSeq() {
              return state.lastSeq;
            },
            clock: this.clock,
            appendCompaction: (result, throughSeq) => this.state.appendCompaction({ ...result, throughSeq }),
            // Repaired as it enters, so what the agent holds always passes the snapshot schema.
            appendOutput: (raw) => this.state.appendModelOutput(repairModelOutput(raw, this.state.nextSeq)),
            setError: (error) => (this.lastErrorValue = error),
            appendFailure: (failure) => this.state.appendModelFailure(failure),
            ...(this.toolCatalogValue ? { catalogDigest: this.toolCatalogValue.digest } : {}),
            refusedAttachments: () => this.refusedAttachmentsValue.map((r) => ({ ...r })),
            refuseAttachments: (reason) => {
              const room = MAX_REFUSED_ATTACHMENTS - this.refusedAttachmentsValue.length;
              const blamed = suspectAttachments(this.state.visible, this.state.lastSeq, this.refusedAttachmentsValue, reason).slice(0, Math.max(0, room));
              this.refusedAttachmentsValue.push(...blamed);
              return blamed.length;
            },
            setCatalog: (catalog) => {
              this.toolCatalogValue = catalog;
              deps.log?.('Tools', `MCP tool catalog ${catalog.digest}: ${catalog.tools.length} tool(s)`);
            },
          },
          runState,
          deps,
        );
      }
      case AgentRunState.WaitingToolResults: {
        const calls = (this.state.lastContextual() as ModelOutputEntry).toolCalls;
        if (calls.length > MAX_TOOL_CALLS_PER_BATCH && this.pendingResults.length === 0 && (!deps.since || deps.since(BATCH_LIMIT_CHANGE))) {
          // The whole batch cannot run: one ExecuteError answers it (seed 000), and the model goes on.
          const entry = this.state.appendToolResults({
            results: [],
            executeError: `The reply asked for ${calls.length} tool calls at once; at most ${MAX_TOOL_CALLS_PER_BATCH} are run. None was run: call fewer at a time.`,
          });
          this.approvalsValue = {};
          this.timersValue = {};
          this.subAgentCallsValue = {};
          this.effectsValue = {};
          deps.log?.('History', `appended tool_results #${entry.seq} with an ExecuteError (${calls.length} calls)`);
          return 'ProgressMade';
        }
        return runToolStep(
          {
            config: this.config,
            widgets: this.widgets,
            approvals: this.approvalsValue,
            timers: this.timersValue,
            subAgentCalls: this.subAgentCallsValue,
            effects: this.effectsValue,
            batchSeq: this.state.lastContextual()?.seq ?? 0,
            clock: this.clock,
            pendingCalls: () => this.pendingToolCalls(),
            offered: (name) => !unofferedTools(this.state.lastContextual()).includes(name),
            addResult: (r) => this.pendingResults.push(repairToolResult(r, r)),
          },
          deps,
        );
      }
      case AgentRunState.ToolResultsReady: {
        const last = this.state.lastContextual() as ModelOutputEntry;
        const ordered = last.toolCalls.map((c) => this.pendingResults.find((r) => r.toolCallId === c.toolCallId)!);
        const entry = this.state.appendToolResults({ results: ordered });
        this.pendingResults = [];
        this.approvalsValue = {};
        this.timersValue = {};
        this.subAgentCallsValue = {};
        this.effectsValue = {};
        deps.log?.('History', `appended tool_results #${entry.seq}`);
        const asked = last.toolCalls.filter((c, i) => ordered[i].metadata?.asked_user === true && c.toolName === ASK_USER_TOOL.name);
        if (asked.length) {
          const questions = asked.map((c) => (typeof c.arguments?.question === 'string' ? c.arguments.question : c.rawArguments));
          // Several questions in one reply reach the person together, numbered (a history recorded before
          // the change showed the first only). The patch is asked only then.
          const question = questions.length > 1 && (deps.since?.(ALL_QUESTIONS_CHANGE) ?? true) ? numberedQuestions(questions) : questions[0];
          this.state.appendTurnEnd({ reason: 'ask_user', question });
          deps.log?.('History', 'the model asked the user a question: the turn ends');
        }
        return 'ProgressMade';
      }
    }
  }

  /** Approval state of the current batch's calls, by toolCallId. */
  get approvals(): Readonly<Record<string, ApprovalState>> {
    return this.approvalsValue;
  }

  /** Calls waiting for a person's decision. */
  awaitingApproval(): Array<{ call: ToolCallRequest; reason: string; requestedAt: string }> {
    return this.pendingToolCalls().flatMap((call) => {
      const a = this.approvalsValue[call.toolCallId];
      return a?.status === 'pending' ? [{ call, reason: a.reason, requestedAt: a.requestedAt }] : [];
    });
  }

  /**
   * Approves or denies one call of the current batch (also ahead of time, before it is reached).
   * Throws for a call that is not pending.
   */
  decideToolCall(raw: unknown, since?: (change: string) => boolean): ToolDecision {
    const decision = this.checkPendingDecision(raw);
    // The first decision wins (ONE_ANSWER_CHANGE, asked only when a second one comes: before it, the last won).
    const prior = this.approvalsValue[decision.toolCallId];
    if (prior && prior.status !== 'pending' && (since?.(ONE_ANSWER_CHANGE) ?? true)) throw this.secondDecision(decision.toolCallId, prior);
    const at = new Date(this.clock()).toISOString();
    const by = { ...(decision.by !== undefined ? { by: decision.by } : {}), ...(decision.door !== undefined ? { door: decision.door } : {}) };
    this.approvalsValue[decision.toolCallId] = decision.approved
      ? { status: 'approved', at, ...by }
      : { status: 'denied', at, ...by, ...(decision.reason !== undefined ? { reason: decision.reason } : {}) };
    if (decision.approved && decision.remember) {
      const call = this.pendingToolCalls().find((c) => c.toolCallId === decision.toolCallId)!;
      const rules = rememberAllow(this.config.toolRules, call.toolName);
      if (rules) this.applyToolRules(rules, 'remember', decision.by);
    }
    return decision;
  }

  /** The refusal of a second decision on a call: who decided first, through which door, when. */
  private secondDecision(toolCallId: string, prior: ApprovalState & { at: string }): InputRejectedError {
    const batchSeq = this.state.lastContextual()?.seq ?? 0;
    return alreadyAnswered(waitIdOf({ kind: 'approval', seq: batchSeq, toolCallId }), prior, prior.status);
  }

  /** The agent's tool rules (approval policy; see tool-rules.ts). */
  get toolRules(): readonly ToolRule[] {
    return this.config.toolRules ?? [];
  }

  /** Validates a change of the tool rules; throws InputRejectedError('BAD_TOOL_RULES'). */
  checkToolRules(raw: unknown): ToolRulesChange {
    return parseToolRulesChange(raw);
  }

  /** Replaces the agent's tool rules (checked as checkToolRules does), recorded as a `tool_rules` entry. */
  setToolRules(raw: unknown): { seq: number; rules: ToolRule[] } {
    const { rules, by } = this.checkToolRules(raw);
    return { seq: this.applyToolRules(rules, 'set', by), rules };
  }

  private applyToolRules(rules: ToolRule[], change: 'set' | 'remember', by: string | undefined): number {
    this.config = { ...this.config, toolRules: rules };
    return this.state.appendToolRules({ rules, change, ...(by !== undefined ? { by } : {}) }).seq;
  }

  /** Validates a change of the A2A push notification configs; throws InputRejectedError('BAD_A2A_PUSH'). */
  checkA2aPush(raw: unknown): A2aPushChange {
    return checkA2aPushChange(raw, this.config.a2aPush, this.nextInputSeqValue);
  }

  /** Sets or removes an A2A push notification config (see a2a-push.ts), recorded as an `a2a_push` entry. */
  setA2aPush(raw: unknown): { seq: number; configs: A2aPushConfig[] } {
    const { configs, entry } = applyA2aPushChange(this.config.a2aPush, this.checkA2aPush(raw));
    this.withA2aPush(configs);
    return { seq: this.state.appendA2aPush(entry).seq, configs };
  }

  /** The A2A push notifications due now (see duePushes); their configs' progress is recorded. */
  a2aPushDue(agentId: string): A2aPushDelivery[] {
    if (!this.config.a2aPush?.length) return [];
    const host = {
      consumedInputSeq: this.consumedInputSeqValue,
      turnOutcome: (seq: number) => this.turnOutcome(seq),
      awaitsApproval: this.status({ stopping: false }).blockedOn === 'approval',
      approvalText: () =>
        `Waiting for approval of ${this.awaitingApproval()
          .map((a) => `${a.call.toolName}(${a.call.rawArguments}): ${a.reason}`)
          .join('; ')}.`,
    };
    const { configs, due } = duePushes(this.config.a2aPush, agentId, host, new Date(this.clock()).toISOString());
    if (due.length || configs.length !== this.config.a2aPush.length) this.withA2aPush(configs);
    return due;
  }

  /** A notification not delivered after its retries: an `a2a_push` entry says so (the agent goes on). */
  recordA2aPushFailure(d: A2aPushDelivery, error: string): void {
    this.state.appendA2aPush({
      change: 'failed',
      configId: d.configId,
      inputSeq: d.inputSeq,
      url: d.url,
      deliveryId: d.deliveryId,
      state: d.state,
      error: error.slice(0, 1000),
    });
  }

  private withA2aPush(configs: A2aPushConfig[]): void {
    const { a2aPush: _old, ...rest } = this.config;
    this.config = configs.length ? { ...rest, a2aPush: configs } : rest;
  }

  /** Calls of the current batch whose outcome is unknown, waiting for a resolution (effect-ledger.ts). */
  unknownOutcomes(): ReturnType<typeof unknownCalls> {
    return unknownCalls(this.effectsValue, this.pendingToolCalls());
  }

  /** The effect ledger of the current batch's activity calls, by toolCallId. */
  get effects(): Readonly<Record<string, EffectRecord>> {
    return this.effectsValue;
  }

  /** Validates a resolution and that its call's outcome is unknown (and not resolved already); throws InputRejectedError. */
  checkResolution(raw: unknown): ToolCallResolution {
    const r = parseToolCallResolution(raw);
    // Resolved and its batch recorded since: say so rather than "no pending call".
    const recorded = this.pendingToolCalls().some((c) => c.toolCallId === r.toolCallId) ? undefined : this.lastResultOf(r.toolCallId);
    const resolved = recorded?.metadata?.resolved;
    if (typeof resolved === 'string' && resolved !== 'retry') {
      throw new InputRejectedError('ALREADY_RESOLVED', `Tool call ${r.toolCallId} was already resolved (${resolved}; its result is recorded).`);
    }
    if (recorded)
      throw new InputRejectedError('ALREADY_RESOLVED', `Tool call ${r.toolCallId} already has its result (${recorded.status}); nothing to resolve.`);
    return checkResolution(this.effectsValue, this.pendingToolCalls(), r);
  }

  /** The result of `toolCallId` in the agent's last tool results, if it is there. */
  private lastResultOf(toolCallId: string): ToolCallResult | undefined {
    const entries = this.state.visible;
    for (let i = entries.length - 1; i >= 0; i--) {
      const e = entries[i];
      if (e.kind === 'tool_results') return e.results.find((r) => r.toolCallId === toolCallId);
    }
    return undefined;
  }

  /**
   * Resolves a call whose outcome is unknown: done or failed records its result (who and when in its
   * metadata); retry lets the call run again as a fresh activity.
   */
  resolveToolCall(raw: unknown): ToolCallResolution {
    const r = this.checkResolution(raw);
    const call = this.pendingToolCalls().find((c) => c.toolCallId === r.toolCallId)!;
    const result = resolveEffect(this.effectsValue, call, r, new Date(this.clock()).toISOString());
    if (result) this.pendingResults.push(result);
    return r;
  }

  /**
   * Validates a decision — from an update or a signal alike — and that its call is pending and not
   * decided yet (the first decision wins); throws InputRejectedError.
   */
  checkDecision(raw: unknown): ToolDecision {
    const decision = parseToolDecision(raw);
    const pending = this.pendingToolCalls().some((c) => c.toolCallId === decision.toolCallId);
    const decided = this.lastResultOf(decision.toolCallId)?.metadata?.decision;
    if (!pending && isDecisionRecord(decided)) {
      const batchSeq = this.batchSeqOf(decision.toolCallId);
      throw alreadyAnswered(waitIdOf({ kind: 'approval', seq: batchSeq, toolCallId: decision.toolCallId }), decided, decided.approved ? 'approved' : 'denied');
    }
    const prior = this.approvalsValue[decision.toolCallId];
    if (pending && prior && prior.status !== 'pending') throw this.secondDecision(decision.toolCallId, prior);
    return this.checkPendingDecision(decision);
  }

  /** A decision's shape, and that its call is pending (the checks made before ONE_ANSWER_CHANGE). */
  private checkPendingDecision(raw: unknown): ToolDecision {
    const decision = parseToolDecision(raw);
    if (!this.pendingToolCalls().some((c) => c.toolCallId === decision.toolCallId)) {
      throw new InputRejectedError('UNKNOWN_TOOL_CALL', `No pending tool call ${decision.toolCallId}.`);
    }
    return decision;
  }

  /** The seq of the model output that called `toolCallId` last (0 when none). */
  private batchSeqOf(toolCallId: string): number {
    const entries = this.state.visible;
    for (let i = entries.length - 1; i >= 0; i--) {
      const e = entries[i];
      if (e.kind === 'model_output' && e.toolCalls.some((c) => c.toolCallId === toolCallId)) return e.seq;
    }
    return 0;
  }

  /** Every wait open now, in the order the agent met them: approvals and unknown outcomes of the batch, or its question. */
  waits(): OpenWait[] {
    const batchSeq = this.state.lastContextual()?.seq ?? 0;
    const approvals = this.awaitingApproval().map((a): OpenWait => ({
      waitId: waitIdOf({ kind: 'approval', seq: batchSeq, toolCallId: a.call.toolCallId }),
      kind: 'approval',
      openedAt: a.requestedAt,
      toolCallId: a.call.toolCallId,
      toolName: a.call.toolName,
      arguments: a.call.rawArguments,
      reason: a.reason,
    }));
    const unknown = this.unknownOutcomes().map((u): OpenWait => ({
      waitId: waitIdOf({ kind: 'unknown_outcome', seq: batchSeq, toolCallId: u.toolCallId }),
      kind: 'unknown_outcome',
      openedAt: u.since,
      toolCallId: u.toolCallId,
      toolName: u.toolName,
      arguments: u.arguments,
      reason: u.reason,
    }));
    const elicitations = this.elicitationsValue
      .open(batchSeq)
      .filter((e) => this.callRunning(e.toolCallId))
      .map((e): OpenWait => ({
        waitId: e.waitId,
        kind: 'elicitation',
        openedAt: e.openedAt,
        toolCallId: e.toolCallId,
        toolName: e.toolName,
        question: e.message,
        requestedSchema: e.requestedSchema,
        ...(e.server !== undefined ? { server: e.server } : {}),
      }));
    const q = this.openQuestion();
    const question: OpenWait[] =
      q && !q.answered
        ? [{ waitId: waitIdOf({ kind: 'question', seq: q.entry.seq }), kind: 'question', openedAt: q.entry.timestamp, question: q.entry.question ?? '' }]
        : [];
    return [...approvals, ...unknown, ...elicitations, ...question];
  }

  /**
   * Whether `toolCallId` is a call of the current batch that has no result yet and whose outcome is not
   * unknown (a call whose worker died waits for a person to resolve it; its question is asked again if it runs again).
   */
  private callRunning(toolCallId: string): boolean {
    return this.pendingToolCalls().some((c) => c.toolCallId === toolCallId) && this.effectsValue[toolCallId]?.outcome !== 'unknown';
  }

  /** Validates a question an MCP server asks during a running call (elicitations.ts); throws InputRejectedError. */
  checkOpenElicitation(raw: unknown): OpenElicitation & { batchSeq: number } {
    const parsed = OpenElicitation.safeParse(raw);
    if (!parsed.success)
      throw new InputRejectedError(
        'BAD_ELICITATION',
        `A question is not well formed: ${parsed.error.issues.map((i) => `${i.path.join('.')}: ${i.message}`).join('; ')}.`,
      );
    const q = parsed.data;
    if (!this.callRunning(q.toolCallId))
      throw new InputRejectedError('UNKNOWN_WAIT', `No running call ${q.toolCallId} in the agent's current batch to ask for.`);
    checkRequestedSchema(q.requestedSchema);
    return { ...q, batchSeq: this.state.lastContextual()?.seq ?? 0 };
  }

  /** Opens a question of a running call as a wait, or gives the one opened before under the same id (a retried call). */
  openElicitation(raw: unknown): Elicitation {
    const q = this.checkOpenElicitation(raw);
    const call = this.pendingToolCalls().find((c) => c.toolCallId === q.toolCallId)!;
    return this.elicitationsValue.add({ ...q, toolName: call.toolName, openedAt: new Date(this.clock()).toISOString() });
  }

  /** A question by its wait id, open or answered (the activity that asked reads its answer here). */
  elicitation(waitId: string): Elicitation | undefined {
    return this.elicitationsValue.get(waitId);
  }

  /** The question the agent's turn ended with, if no input was taken since, and the input queued to answer it. */
  private openQuestion(): { entry: TurnEndEntry; answered?: WaitAnswerRecord & { inputSeq: number } } | undefined {
    if (this.runState !== AgentRunState.WaitingInput) return undefined;
    const entries = this.state.visible;
    for (let i = entries.length - 1; i >= 0; i--) {
      const e = entries[i];
      if (e.kind === 'turn_end') {
        if (e.reason !== 'ask_user') return undefined;
        const first = this.inboxItems[0]; // the first input after the question answers it, whichever way it came
        const answered = first
          ? {
              inputSeq: first.inputSeq,
              at: first.receivedAt,
              door: first.answers?.door ?? 'input',
              ...(first.sender !== undefined ? { by: first.sender } : {}),
            }
          : undefined;
        return { entry: e, ...(answered ? { answered } : {}) };
      }
      if (e.kind === 'model_input' || e.kind === 'model_output' || e.kind === 'tool_results') return undefined;
    }
    return undefined;
  }

  /** Validates an answer to a wait and that the wait is open (the first answer wins); throws InputRejectedError. */
  checkWaitAnswer(raw: unknown): ReturnType<typeof parseWaitAnswer> {
    const a = parseWaitAnswer(raw);
    const { kind, seq, toolCallId } = a.target;
    if (kind === 'question') {
      const q = this.openQuestion();
      if (q?.entry.seq === seq && !q.answered) return a;
      if (q?.entry.seq === seq && q.answered) throw alreadyAnswered(a.waitId, q.answered, `input #${q.answered.inputSeq}`);
      const reply = this.replyTo(seq);
      if (reply) throw alreadyAnswered(a.waitId, reply, `input #${reply.inputSeq}`);
      throw new InputRejectedError('UNKNOWN_WAIT', `No question ${a.waitId}: the agent asked nothing at #${seq}, or it was rewound.`);
    }
    if (kind === 'elicitation') {
      const e = this.elicitationsValue.get(a.waitId);
      if (e?.answer) throw alreadyAnswered(a.waitId, e.answer, e.answer.action);
      if (!e || !this.callRunning(e.toolCallId) || e.batchSeq !== this.state.lastContextual()?.seq)
        throw new InputRejectedError('UNKNOWN_WAIT', `No open question ${a.waitId}: its call ended, or the server never asked it.`);
      if (a.answer.action === 'accept') checkElicitContent(a.waitId, e.requestedSchema, a.answer.content ?? {});
      return a;
    }
    const current = this.state.lastContextual()?.seq;
    if (seq !== current) {
      const decided = this.resultInBatch(seq, toolCallId!)?.metadata;
      if (kind === 'approval' && isDecisionRecord(decided?.decision))
        throw alreadyAnswered(a.waitId, decided.decision, decided.decision.approved ? 'approved' : 'denied');
      if (kind === 'unknown_outcome' && typeof decided?.resolved === 'string') {
        const rec = { at: String(decided.resolved_at ?? ''), ...strings(decided, { door: 'resolved_door', by: 'resolved_by' }) };
        throw alreadyAnswered(a.waitId, rec, String(decided.resolved));
      }
      throw new InputRejectedError('UNKNOWN_WAIT', `No open wait ${a.waitId}: the agent's current batch is #${current ?? 0}.`);
    }
    const base = { toolCallId: toolCallId!, ...(a.by !== undefined ? { by: a.by } : {}), door: a.door ?? 'client' };
    if (kind === 'approval') this.checkDecision(this.decisionOf(a));
    else checkResolution(this.effectsValue, this.pendingToolCalls(), { ...base, ...resolutionOf(a.answer) });
    return a;
  }

  /**
   * Answers a wait (checked as checkWaitAnswer does): an approval is decided, an unknown outcome
   * resolved, a question's reply queued as the next input marked as its answer.
   */
  answerWait(raw: unknown, since?: (change: string) => boolean): WaitAnswered {
    const a = this.checkWaitAnswer(raw);
    const { kind, toolCallId } = a.target;
    const door = a.door ?? 'client';
    if (kind === 'approval') this.decideToolCall(this.decisionOf(a), since);
    else if (kind === 'elicitation') {
      const { action, content } = a.answer;
      this.elicitationsValue.answer(a.waitId, {
        action: action!,
        ...(action === 'accept' ? { content: content ?? {} } : {}),
        door,
        ...(a.by !== undefined ? { by: a.by } : {}),
        at: new Date(this.clock()).toISOString(),
      });
    } else if (kind === 'unknown_outcome')
      this.resolveToolCall({ toolCallId: toolCallId!, ...(a.by !== undefined ? { by: a.by } : {}), door, ...resolutionOf(a.answer) });
    else {
      const { inputSeq } = this.enqueueInput({ text: a.answer.text, ...(a.by !== undefined ? { sender: a.by } : {}) });
      this.inboxItems[this.inboxItems.length - 1].answers = { waitId: a.waitId, door, ...(a.by !== undefined ? { by: a.by } : {}) };
      return { waitId: a.waitId, kind, inputSeq };
    }
    return { waitId: a.waitId, kind };
  }

  private decisionOf(a: WaitAnswer & { target: { toolCallId?: string } }): ToolDecision {
    const { approved, reason, remember } = a.answer;
    return {
      toolCallId: a.target.toolCallId!,
      approved: approved!,
      door: a.door ?? 'client',
      ...(reason !== undefined ? { reason } : {}),
      ...(remember ? { remember } : {}),
      ...(a.by !== undefined ? { by: a.by } : {}),
    };
  }

  /** The input that came first after the question at `seq`, as who answered it. */
  private replyTo(seq: number): (WaitAnswerRecord & { inputSeq: number }) | undefined {
    const entries = this.state.visible;
    const at = entries.findIndex((e) => e.seq === seq);
    if (at < 0 || entries[at].kind !== 'turn_end') return undefined;
    const input = entries.slice(at + 1).find((e): e is ModelInputEntry => e.kind === 'model_input');
    if (!input) return undefined;
    return {
      inputSeq: input.inputSeq ?? 0,
      at: input.timestamp,
      door: input.answers?.door ?? 'input',
      ...(input.answers?.by !== undefined ? { by: input.answers.by } : input.sender !== undefined ? { by: input.sender } : {}),
    };
  }

  /** The result of `toolCallId` in the tool results that answered the model output at `batchSeq`. */
  private resultInBatch(batchSeq: number, toolCallId: string): ToolCallResult | undefined {
    const entries = this.state.visible;
    const at = entries.findIndex((e) => e.seq === batchSeq);
    if (at < 0) return undefined;
    const results = entries.slice(at + 1).find((e) => e.kind === 'tool_results');
    return results?.kind === 'tool_results' ? results.results.find((r) => r.toolCallId === toolCallId) : undefined;
  }

  /** What became of input `inputSeq`; undefined while it is still queued or being worked on. */
  turnOutcome(inputSeq: number): TurnOutcome | undefined {
    if (inputSeq > this.consumedInputSeqValue) return undefined;
    if (this.resetAfterInputSeq !== undefined && inputSeq <= this.resetAfterInputSeq) return { inputSeq, status: 'reset' };
    if (inputSeq <= (this.state.archive?.inputSeq ?? 0)) return { inputSeq, status: 'archived' };
    const entries = this.state.entries;
    const start = entries.findIndex((e) => e.kind === 'model_input' && e.inputSeq === inputSeq);
    if (start < 0) return { inputSeq, status: 'ignored', reason: 'blank input is dropped' };
    const answer = findAnswer(entries, start);
    if (answer === 'rewound') return { inputSeq, status: 'ignored', reason: 'its turn was rewound before it was answered' };
    if (answer?.kind === 'turn_end') {
      return answer.reason === 'ask_user'
        ? { inputSeq, status: 'asked', question: answer.question ?? '', waitId: waitIdOf({ kind: 'question', seq: answer.seq }) }
        : { inputSeq, status: 'interrupted', ...(answer.by !== undefined ? { by: answer.by } : {}) };
    }
    if (answer) return { inputSeq, status: 'answered', answer, inputEntrySeq: entries[start].seq };
    if (this.lastErrorValue) return { inputSeq, status: 'error', error: this.lastErrorValue };
    return undefined;
  }
}

/** The since-change a second decision on a call is refused by (the first one wins; before it, the last did). */
export const ONE_ANSWER_CHANGE = 'one-answer-per-wait';

function isDecisionRecord(v: unknown): v is { approved: boolean; door?: string; by?: string; at: string } {
  return !!v && typeof v === 'object' && typeof (v as { at?: unknown }).at === 'string' && typeof (v as { approved?: unknown }).approved === 'boolean';
}

/** The resolution fields of an answer to an unknown outcome. */
function resolutionOf(a: WaitAnswer['answer']): { done: string } | { failed: string } | { retry: true } {
  return a.done !== undefined ? { done: a.done } : a.failed !== undefined ? { failed: a.failed } : { retry: true };
}

/** The named string fields of a metadata record under new names. */
function strings(m: Record<string, unknown>, names: Record<string, string>): Record<string, string> {
  return Object.fromEntries(Object.entries(names).flatMap(([to, from]) => (typeof m[from] === 'string' ? [[to, m[from] as string]] : [])));
}

/** Tool names the model made up in this output (recorded by the model call as `unoffered_tools`). */
function unofferedTools(entry: HistoryEntry | undefined): string[] {
  const names = entry?.kind === 'model_output' ? entry.metadata?.unoffered_tools : undefined;
  return Array.isArray(names) ? names.filter((n): n is string => typeof n === 'string') : [];
}

/**
 * The first model output without tool calls after entry `start` (the answer), or the turn_end that ended
 * the turn; `rewound` when a rewind took the input out before either (a rewind to the input itself runs
 * its turn again: the answer after it is the turn's).
 */
function findAnswer(entries: readonly HistoryEntry[], start: number): ModelOutputEntry | TurnEndEntry | 'rewound' | undefined {
  for (let i = start + 1; i < entries.length; i++) {
    const e = entries[i];
    if (e.kind === 'rewind' && e.toSeq < entries[start].seq) return 'rewound';
    if (e.kind === 'model_output' && e.toolCalls.length === 0) return e;
    if (e.kind === 'turn_end') return e;
    if (e.kind === 'model_input') return undefined;
  }
  return undefined;
}

function copyEffects(effects: Record<string, EffectRecord> | undefined): Record<string, EffectRecord> {
  return Object.fromEntries(Object.entries(effects ?? {}).map(([id, e]) => [id, { ...e, ...(e.resolution ? { resolution: { ...e.resolution } } : {}) }]));
}

function copySubAgentCalls(calls: Record<string, SubAgentCall> | undefined): Record<string, SubAgentCall> {
  return Object.fromEntries(Object.entries(calls ?? {}).map(([id, c]) => [id, { ...c, ...(c.result ? { result: { ...c.result } } : {}) }]));
}

/**
 * A cost budget that cannot work: the agent's last model call has token counts but no cost, because the
 * worker that made it has no price for the model, so cost never grows and the budget is never reached.
 * Said in `state` rather than refused: the price table belongs to the worker, and another worker (or this
 * one restarted with LIVECONTEXT_PRICES) may have one.
 */
function unpricedCostBudget(config: AgentConfig, entries: readonly HistoryEntry[]): string | undefined {
  const budgets = config.budgets;
  const names = (['turnCostUsd', 'dayCostUsd'] as const).filter((n) => budgets?.[n] !== undefined);
  if (!names.length) return undefined;
  for (let i = entries.length - 1; i >= 0; i--) {
    const e = entries[i];
    if (e.kind !== 'model_output') continue;
    if (!e.usage || e.usage.costUsd !== undefined) return undefined;
    const model = `${e.invocation.providerId}:${e.invocation.model}`;
    return `The cost budget (${names.join(', ')}) is not enforced: the worker that called ${model} has no price for it, so its calls cost nothing here. Give the worker a price table (LIVECONTEXT_PRICES) or use token budgets (turnTokens, dayTokens).`;
  }
  return undefined;
}
