/**
 * Every signal, query and update of the agent workflow, and the task queue name: the one module that
 * the workflow and all clients import, so no message name is spelled anywhere else.
 */
import { SearchAttributeType, defineSearchAttributeKey } from '@temporalio/common';
import { defineQuery, defineSignal, defineUpdate } from '@temporalio/workflow';
import type {
  AgentConfig,
  ArchiveIndex,
  AgentInput,
  AgentSnapshot,
  AgentStatus,
  ConfigChange,
  HistoryEntry,
  ToolCallRequest,
  ToolDecision,
  ToolCallResolution,
  ToolRule,
  ToolRulesChange,
  A2aPushChange,
  A2aPushConfig,
  WaitAnswer,
  WaitAnswered,
  Elicitation,
  OpenElicitation,
  TurnOutcome,
  SubAgentResult,
  RewindRequest,
  RewindResult,
} from '../agent/index';
import { MODEL_ATTRIBUTE_NAME, PROVIDER_ATTRIBUTE_NAME, RUN_STATE_ATTRIBUTE_NAME, STATE_QUERY, TASK_QUEUE, WORKFLOW_TYPE } from './names';

export { TASK_QUEUE, WORKFLOW_TYPE };

/**
 * Search attributes that make agents findable in the Web UI and by `livecontext list`. They must be
 * registered on the namespace (`livecontext dev` does; on a cluster: `temporal operator
 * search-attribute create --name LivecontextRunState --type Keyword`, same for the others). Agents
 * started where they are not registered simply run without them.
 */
export const RUN_STATE_ATTRIBUTE = defineSearchAttributeKey(RUN_STATE_ATTRIBUTE_NAME, SearchAttributeType.KEYWORD);
export const MODEL_ATTRIBUTE = defineSearchAttributeKey(MODEL_ATTRIBUTE_NAME, SearchAttributeType.KEYWORD);
export const PROVIDER_ATTRIBUTE = defineSearchAttributeKey(PROVIDER_ATTRIBUTE_NAME, SearchAttributeType.KEYWORD);
/** Set at a fork's start to the agent it was forked from: how an agent's forks are found (never written by workflow code). */
export const FORKED_FROM_ATTRIBUTE = defineSearchAttributeKey('LivecontextForkedFrom', SearchAttributeType.KEYWORD);
export const SEARCH_ATTRIBUTES = [RUN_STATE_ATTRIBUTE, MODEL_ATTRIBUTE, PROVIDER_ATTRIBUTE, FORKED_FROM_ATTRIBUTE];

/** Start arguments: a fresh agent from a config, or one restored from a snapshot (import, continue-as-new). */
export type AgentWorkflowInput =
  /** `initialInput`: taken as the agent's first input (a sub-agent's task). */
  | { config: AgentConfig; systemInstruction?: string; initialInput?: AgentInput }
  /**
   * `imported`: from another cluster or a file, so its approvals are asked again (not on continue-as-new).
   * `checked`: the run that continued as new checked this very snapshot (readSnapshot) before carrying it;
   * honoured only in a run started by continue-as-new.
   */
  | { snapshot: AgentSnapshot; imported?: boolean; checked?: boolean };

/** The workflow a livecontext schedule starts at each of its times (see scheduled-input-workflow). */
export const SCHEDULED_INPUT_WORKFLOW_TYPE = 'scheduledInputWorkflow';

/** What a schedule delivers to its agent each time. */
export interface ScheduledInput {
  agentId: string;
  text: string;
  /** Who the input is from (default `schedule`). */
  sender?: string;
  /** Start the agent with this when none with its id is running (signal-with-start); else the input fails. */
  startIfMissing?: { config: AgentConfig; systemInstruction?: string };
}

/** A snapshot of the agent's status, as the `state` query returns it (see agent/agent-status). */
export type { AgentStatus };

export interface EntriesPage {
  entries: HistoryEntry[];
  /** Pass as `afterSeq` for the next page; null when there is no more (up to `uptoSeq`). */
  nextAfterSeq: number | null;
  lastSeq: number;
  /**
   * Ranges `[fromSeq, toSeq]` of this page's entries that a rewind took out (shown by `history --all`,
   * left out of plain `history`). Absent when none.
   */
  rewound?: Array<[number, number]>;
  /**
   * Entries up to here are in the agent's archive, not in this query's pages (which start after it):
   * read them from the archive (the `archive` query gives its index). Absent while nothing is archived.
   */
  archivedThroughSeq?: number;
}

export interface EntriesRequest {
  /** Entries with seq > afterSeq (default 0). */
  afterSeq?: number;
  /** Entries with seq <= uptoSeq (default: all). */
  uptoSeq?: number;
  /** At most this many entries (default and maximum 500; pages also stop near 1 MB). */
  limit?: number;
}

/** Fire-and-forget input, for other services. Malformed payloads are logged and dropped. */
export const inputSignal = defineSignal<[AgentInput]>('input');
/** Input that returns once accepted, with its input sequence number; rejected (with a reason) if invalid. */
export const sendInputUpdate = defineUpdate<{ inputSeq: number; duplicate?: true }, [AgentInput]>('sendInput');
/**
 * An answer by reference: the entry is already in history (as the model call's result), so the update
 * result names it instead of copying it. Read it with the `entries` query (`afterSeq: answerSeq - 1`),
 * on `runId` if the agent has been reset since.
 */
export interface AnsweredByReference {
  inputSeq: number;
  status: 'answered';
  answerSeq: number;
  inputEntrySeq: number;
  runId: string;
}
export type TurnReceipt = Exclude<TurnOutcome, { status: 'answered' }> | AnsweredByReference | Extract<TurnOutcome, { status: 'answered' }>;
export interface WaitForAnswerRequest {
  inputSeq: number;
  /** Put the whole answer in the result (a second copy of it in history); default: by reference. */
  withAnswer?: boolean;
}
/** Completes when the agent has finished its turn for that input (answered, ignored, error or stopped). */
export const waitForAnswerUpdate = defineUpdate<TurnReceipt, [WaitForAnswerRequest]>('waitForAnswer');
export interface AskRequest {
  input: AgentInput;
  /** As in WaitForAnswerRequest: the whole answer in the result instead of its reference. */
  withAnswer?: boolean;
}
/** What `ask` completes with: the turn's receipt, and `duplicate` when the input's idempotency key was seen before. */
export type AskReceipt = TurnReceipt & { duplicate?: true };
/**
 * `sendInput` and `waitForAnswer` in one update: accepted with the input (refused like `sendInput`),
 * completed when the turn for it is over. One update per turn instead of two: fewer history events
 * and workflow tasks. `continued` means the turn goes on in the next run: wait there with `waitForAnswer`.
 */
export const askUpdate = defineUpdate<AskReceipt, [AskRequest]>('ask');
/** The input an `ask` took, while its turn runs. */
export interface AskAccepted {
  inputSeq: number;
  duplicate?: true;
}
/**
 * The input a running `ask` update (by its update id) took, or null once it completed (its receipt
 * says) or if no such ask runs: for a client that follows the turn before it ends, without a second update.
 */
export const askedInputQuery = defineQuery<AskAccepted | null, [string]>('askedInput');
/** Change model, tools or system instruction; returns the new status. Clears a blocking error. */
export const configureUpdate = defineUpdate<AgentStatus, [ConfigChange]>('configure');
/** Fire-and-forget variant of `configure`; an invalid change is logged and dropped. */
export const configureSignal = defineSignal<[ConfigChange]>('configure');
/** A person's decision on a tool call of the current batch (also ahead of time); see agent/tool-decision. */
export type { ToolDecision };
/** Approve or deny a tool call; returns the new status. Refused for a call that is not pending. */
export const decideToolCallUpdate = defineUpdate<AgentStatus, [ToolDecision]>('decideToolCall');
/** Fire-and-forget variant; an invalid decision is logged and dropped. */
export const decideToolCallSignal = defineSignal<[ToolDecision]>('decideToolCall');
/** How a person or a service resolves a tool call whose outcome is unknown; see agent/effect-ledger. */
export type { ToolCallResolution };
/**
 * Resolve a call whose outcome is unknown: `done` (a Success result with this text), `failed` (a Failed
 * result), or `retry` (it runs again). Returns the new status; refused for a call not unknown or resolved already.
 */
export const resolveToolCallUpdate = defineUpdate<AgentStatus, [ToolCallResolution]>('resolveToolCall');
/** An answer to one of the agent's waits (see agent/waits.ts). */
export type { WaitAnswer, WaitAnswered, ToolRulesChange };
/**
 * Answer a wait the agent's state lists (`waits`): an approval, an unknown outcome or its question. The
 * first answer wins; a later one is refused (ALREADY_ANSWERED) saying who answered, through which door and when.
 */
export const answerWaitUpdate = defineUpdate<WaitAnswered & { status: AgentStatus }, [WaitAnswer]>('answerWait');
export type { Elicitation, OpenElicitation };
/**
 * From the activity running an MCP tool call: the server asks the user a question (elicitation), opened
 * as a wait (`elicit-…`). Returns the question, with its answer when one was given already (a retried call
 * asking again). Refused for a call not running in the current batch, or a malformed or oversized question.
 */
export const openElicitationUpdate = defineUpdate<Elicitation, [OpenElicitation]>('openElicitation');
/** A question opened by openElicitationUpdate, by wait id, with its answer once given (the asking activity polls it). */
export const elicitationQuery = defineQuery<Elicitation | null, [string]>('elicitation');
/** Replace the agent's tool rules (approval policy, see agent/tool-rules.ts); recorded as a `tool_rules` entry. */
export const setToolRulesUpdate = defineUpdate<{ seq: number; rules: ToolRule[] }, [ToolRulesChange]>('setToolRules');
/**
 * A host's write to the memory notebook (seed 000 `UpdateMemoryNotebook`): `set` replaces it, `append`
 * adds to it; `by` says who (free text). Recorded in history; the model sees it in its next Live Screen.
 */
export type NotebookWrite = ({ set: string } | { append: string }) & { by?: string };
export interface NotebookWriteResult {
  notebook: string;
  /** The history entry that records the write. */
  seq: number;
}
export const updateNotebookUpdate = defineUpdate<NotebookWriteResult, [NotebookWrite]>('updateNotebook');
/** Start over with an empty history, keeping the configuration (and queued input). */
/** Set or remove an A2A push notification config of a task (see agent/a2a-push.ts); recorded as an `a2a_push` entry. */
export const setA2aPushUpdate = defineUpdate<{ seq: number; configs: A2aPushConfig[] }, [A2aPushChange]>('setA2aPush');
export const resetUpdate = defineUpdate<{ reset: true }>('reset');
/** Try a failed model call again. */
export const retrySignal = defineSignal('retry');

/** A sub-agent's outcome, sent by the child to its parent (by workflow id: it reaches the parent's current run). */
export const subAgentResultSignal = defineSignal<[SubAgentResult]>('subAgentResult');

/** Who asks to interrupt the running turn (free text, shown in history). */
export interface InterruptRequest {
  by?: string;
  /** Only if this input's turn is the one running (refused NOT_RUNNING otherwise): a protocol task's cancel. */
  inputSeq?: number;
}
/**
 * Ends the running turn without an answer: the model call or tools in flight are cancelled, finished
 * tool calls keep their results, and the agent waits for new input. Completes once that is recorded;
 * `interrupted: false` when the agent was not working on a turn.
 */
export const interruptUpdate = defineUpdate<{ interrupted: boolean; lastSeq: number }, [InterruptRequest]>('interrupt');
/**
 * Takes the agent back to entry `toSeq` (a turn's end, or a model input whose turn then runs again), as if
 * what followed had not happened: a `rewind` entry records it, the entries after `toSeq` stay in history
 * but leave the model's context, the widgets and the budgets; queued input is kept. Refused (and nothing
 * changes) while the agent works, for a point that is not valid, or one in the archive.
 */
export const rewindUpdate = defineUpdate<RewindResult, [RewindRequest]>('rewind');
/** End the agent after its current step. */
export const stopSignal = defineSignal<[{ reason?: string }?]>('stop');

export const stateQuery = defineQuery<AgentStatus>(STATE_QUERY);
export const entriesQuery = defineQuery<EntriesPage, [EntriesRequest?]>('entries');
export const pendingToolCallsQuery = defineQuery<ToolCallRequest[]>('pendingToolCalls');
export const snapshotQuery = defineQuery<AgentSnapshot>('snapshot');
/** The index of the agent's archive (older entries sealed into segments), or null when nothing is archived. */
export const archiveQuery = defineQuery<ArchiveIndex | null>('archive');
/** How the turn of an input ended, or null while it is not over: what `waitForAnswer` gives, without an update. */
export const turnOutcomeQuery = defineQuery<TurnOutcome | null, [number]>('turnOutcome');
