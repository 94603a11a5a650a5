/**
 * The zod schemas of the REST API: request bodies and responses. Where the project has a schema, it is
 * used as it is (AgentInput, NewAgentConfig, ConfigChange, HistoryEntry, AgentSnapshot…); the shapes
 * that exist only as TypeScript types (AgentStatus, TurnOutcome, AgentSummary…) get their schema here,
 * with a compile-time check that schema and type are the same, so neither can change without the other.
 * The routes validate with these schemas and /openapi.json is generated from them: no JSON schema is
 * written by hand.
 */
import { z } from 'zod';
import {
  AgentConfig,
  AgentId,
  AgentInput,
  AgentRunState,
  AgentSnapshot,
  ConfigChange,
  EffectRecord,
  HistoryEntry,
  ModelOutputEntry,
  NewAgentConfig,
  TaskStatus,
  ToolCallRequest,
  Door,
  ToolRule,
  WaitAnswerBody,
  type OpenWait,
  type AgentError,
  type AgentStatus,
  type TurnOutcome,
  type UsageTotals,
} from '../agent/index';
import type { AgentSummary } from '../client/agent-list';
import { RunStateWords, type RunStateWord, type stateWords } from '../client/state-view';
import type { NotebookWrite, NotebookWriteResult } from '../workflows/messages';

type StateWords = ReturnType<typeof stateWords>;

/** True when A and B are the same type (each assignable to the other). */
type Same<A, B> = [A] extends [B] ? ([B] extends [A] ? true : false) : false;
/** Fails to compile unless its argument is `true`: used as `agree<Same<X, Y>>()`. */
const agree = <T extends true>(): T | undefined => undefined;

/** `{ "error": { "code", "message", "issues"? } }`: every error the gateway answers (see http-errors). */
export const ErrorBody = z
  .object({
    error: z.object({
      code: z.string().describe('Stable machine-readable code, e.g. AGENT_NOT_FOUND, READ_ONLY_TOKEN, NO_WORKER.'),
      message: z.string(),
      issues: z.unknown().optional().describe('For a body or parameter that does not match its schema: the zod issues.'),
    }),
  })
  .meta({ id: 'Error' });

export const AgentPath = z.object({ id: AgentId });
export const ToolCallPath = AgentPath.extend({ toolCallId: z.string().min(1).max(200) });
export const AnswerPath = AgentPath.extend({ inputSeq: z.coerce.number().int().positive() });

/** `?flag=1` / `true` / `0` / `false` (absent: false). */
const Flag = z
  .enum(['1', 'true', '0', 'false'])
  .optional()
  .transform((v) => v === '1' || v === 'true');

export const ListQuery = z.object({
  all: Flag.describe('1: also agents that ended (stopped, failed, terminated).'),
  limit: z.coerce.number().int().min(1).max(1000).optional().describe('At most this many agents (default 1000).'),
});
export const HistoryQuery = z.object({
  after: z.coerce.number().int().nonnegative().optional().describe('Entries with seq greater than this (default 0).'),
  limit: z.coerce.number().int().min(1).max(500).optional().describe('At most this many entries (default and maximum 500; a page also ends near 1 MB).'),
});
export const InputQuery = z.object({ wait: Flag.describe('1: answer when the turn has ended, with its outcome (200), instead of at once (202).') });
export const InputHeaders = z.object({
  'idempotency-key': z
    .string()
    .min(1)
    .max(200)
    .optional()
    .describe("The sender's delivery id: a repeated delivery returns the first one's inputSeq with duplicate: true. Same as the body's idempotencyKey."),
});

/** POST /agents: the id and a new agent's configuration. */
export const StartAgentBody = NewAgentConfig.extend({
  agentId: AgentId,
  systemInstruction: z
    .string()
    .max(64 * 1024)
    .optional(),
})
  .strict()
  .meta({ id: 'StartAgent' });
export const StartedAgent = z
  .object({
    agentId: z.string(),
    runId: z.string(),
    warning: z
      .string()
      .optional()
      .describe(
        "Why the agent cannot make model calls yet — no worker polls its task queue, or none has the model's provider or its API key — so the first turn would be blocked; the agent is started all the same.",
      ),
  })
  .meta({ id: 'StartedAgent' });

/** POST /agents/import: a snapshot (from GET /agents/:id/export) and the id to give it (default: its sourceAgentId). */
export const ImportAgentBody = z.object({ snapshot: AgentSnapshot, agentId: AgentId.optional() }).strict().meta({ id: 'ImportAgent' });

export const AgentSummarySchema = z
  .object({
    agentId: z.string(),
    status: z.string().describe("Temporal's execution status: RUNNING, COMPLETED, TERMINATED…"),
    startTime: z.string(),
    runState: z.string().nullable().describe('WaitingInput, WaitingApproval, WaitingResolution, BlockedOnError, Working… (null without search attributes).'),
    model: z.string().nullable(),
    provider: z.string().nullable(),
    stateWord: z
      .string()
      .describe(
        'The run state in words, as every livecontext view says it: waiting for input, working, waiting for approval, blocked by an error, stopping, stopped, ended: …',
      ),
  })
  .meta({ id: 'AgentSummary' });
agree<Same<z.infer<typeof AgentSummarySchema>, AgentSummary>>();
export const AgentList = z.object({ agents: z.array(AgentSummarySchema) });

const RunStateSchema = z.enum(Object.values(AgentRunState) as [AgentRunState, ...AgentRunState[]]);
export const AgentErrorSchema = z.object({ code: z.string(), message: z.string(), runState: RunStateSchema, at: z.string() }).meta({ id: 'AgentError' });
agree<Same<z.infer<typeof AgentErrorSchema>, AgentError>>();

const UsageTotalsSchema = z.object({
  inputTokens: z.number(),
  outputTokens: z.number(),
  cachedInputTokens: z.number(),
  costUsd: z.number(),
  modelCalls: z.number(),
});
agree<Same<z.infer<typeof UsageTotalsSchema>, UsageTotals>>();
const StatusUsageSchema = UsageTotalsSchema.extend({ cacheHitRatio: z.number().min(0).max(1).optional() });

export const TaskSchema = z.object({ id: z.number().int().positive(), title: z.string(), status: TaskStatus }).meta({ id: 'Task' });

/** What GET /agents/:id answers: the agent's `state` query (see agent/agent-status.ts for each field). */
/** One open wait (see agent/waits.ts). */
export const OpenWaitSchema = z
  .object({
    waitId: z.string(),
    kind: z.enum(['approval', 'question', 'unknown_outcome', 'elicitation']),
    openedAt: z.string(),
    toolCallId: z.string().optional(),
    toolName: z.string().optional(),
    arguments: z.string().optional(),
    reason: z.string().optional(),
    question: z.string().optional().describe("question: what the model asked; elicitation: the MCP server's message."),
    requestedSchema: z
      .record(z.string(), z.unknown())
      .optional()
      .describe('elicitation: the JSON schema of the content to answer with ({"action": "accept", "content": {...}}).'),
    server: z.string().optional().describe('elicitation: the MCP server that asks.'),
  })
  .meta({ id: 'OpenWait' });
agree<Same<z.infer<typeof OpenWaitSchema>, OpenWait>>();

export const AgentStatusSchema = z
  .object({
    runState: RunStateSchema,
    blockedOn: z.enum(['input', 'error', 'approval', 'unknown_outcome']).nullable(),
    awaitingApproval: z.array(z.object({ toolCallId: z.string(), toolName: z.string(), arguments: z.string(), reason: z.string(), requestedAt: z.string() })),
    unknownOutcomes: z
      .array(z.object({ toolCallId: z.string(), toolName: z.string(), arguments: z.string(), reason: z.string(), startedAt: z.string(), since: z.string() }))
      .optional()
      .describe('Tool calls whose outcome is unknown (an attempt started and never reported), waiting for POST .../resolve.'),
    waits: z
      .array(OpenWaitSchema)
      .optional()
      .describe('Everything the agent waits on from outside, each with the id to answer it by (POST /agents/{id}/waits/{waitId}); absent when none.'),
    effects: z
      .array(z.object({ toolCallId: z.string() }).extend(EffectRecord.shape))
      .optional()
      .describe("The effect ledger of the current batch's activity calls: when each started and how it ended (running, succeeded, failed, unknown)."),
    config: AgentConfig,
    systemInstruction: z.string(),
    notebook: z.string(),
    tasks: z.array(TaskSchema),
    mcpTools: z.array(z.string()).optional(),
    subAgents: z
      .array(
        z.object({ toolCallId: z.string(), agentId: z.string(), profile: z.string(), startedAt: z.string(), status: z.enum(['Running', 'Success', 'Failed']) }),
      )
      .optional(),
    delegatedBy: z.object({ agentId: z.string(), toolCallId: z.string(), depth: z.number() }).optional(),
    entryCount: z.number(),
    lastSeq: z.number(),
    inboxLength: z.number(),
    nextInputSeq: z.number(),
    consumedInputSeq: z.number(),
    pendingToolCalls: z.array(ToolCallRequest),
    pendingToolResultCount: z.number(),
    lastError: AgentErrorSchema.nullable(),
    usage: StatusUsageSchema,
    stopping: z.boolean(),
    warning: z.string().nullable(),
    stateWord: z
      .enum(Object.values(RunStateWords) as [RunStateWord, ...RunStateWord[]])
      .describe('The run state in words, as every livecontext view says it (the CLI, the MCP tools, the web page).'),
    stateDetail: z
      .string()
      .nullable()
      .describe('What goes with the word: what a working agent does, the tools waiting for approval, the error code or budget that blocks it.'),
  })
  .meta({ id: 'AgentStatus' });
agree<Same<z.infer<typeof AgentStatusSchema>, AgentStatus & StateWords>>();

/** What became of one input (see TurnOutcome in agent/agent.ts). */
export const TurnOutcomeSchema = z
  .discriminatedUnion('status', [
    z.object({ inputSeq: z.number(), status: z.literal('answered'), answer: ModelOutputEntry, inputEntrySeq: z.number() }),
    z.object({ inputSeq: z.number(), status: z.literal('ignored'), reason: z.string() }),
    z.object({ inputSeq: z.number(), status: z.literal('error'), error: AgentErrorSchema }),
    z.object({ inputSeq: z.number(), status: z.literal('stopped') }),
    z.object({ inputSeq: z.number(), status: z.literal('reset') }),
    z.object({ inputSeq: z.number(), status: z.literal('interrupted'), by: z.string().optional() }).describe('A person interrupted the turn.'),
    z
      .object({ inputSeq: z.number(), status: z.literal('asked'), question: z.string(), waitId: z.string().optional() })
      .describe('The turn ended with a question for the person; the reply is the next input (answer `waitId` to be its only answer).'),
    z.object({ inputSeq: z.number(), status: z.literal('continued') }),
    z.object({ inputSeq: z.number(), status: z.literal('archived') }),
  ])
  .meta({ id: 'TurnOutcome' });
agree<Same<z.infer<typeof TurnOutcomeSchema>, TurnOutcome>>();

/** The request body of POST /agents/:id/input: AgentInput as the project defines it. */
export const InputBody = AgentInput.meta({ id: 'AgentInput' });
export const InputAccepted = z
  .object({ inputSeq: z.number().int().positive(), duplicate: z.literal(true).optional().describe('This delivery was taken before (same idempotency key).') })
  .meta({ id: 'InputAccepted' });
export const InputAnswered = InputAccepted.extend({ outcome: TurnOutcomeSchema }).meta({ id: 'InputAnswered' });

export const HistoryPage = z
  .object({
    entries: z.array(HistoryEntry),
    nextAfter: z.number().nullable().describe('Pass as `after` for the next page; null when there is no more.'),
    lastSeq: z.number().describe("The agent's newest entry."),
    rewound: z
      .array(z.tuple([z.number(), z.number()]))
      .optional()
      .describe('Ranges [from, to] of seqs on this page that a rewind took out: still in history, no longer in force. Absent when none.'),
  })
  .meta({ id: 'HistoryPage' });

export const ApproveBody = z
  .object({
    by: z.string().max(200).optional().describe('Who decided (recorded).'),
    door: Door.optional().describe('Through which door the decision came (recorded; default `rest`, the web page sends `page`).'),
  })
  .strict();
export const DenyBody = ApproveBody.extend({ reason: z.string().max(4096).optional().describe('Shown to the model.') }).strict();
/** POST .../resolve: how a tool call whose outcome is unknown ended (exactly one of done, failed, retry). */
const by = z.string().max(200).optional().describe('Who resolved it (recorded in the result).');
export const ResolveBody = z
  .union([
    z.object({ done: z.string().max(65536).describe('It happened: the Success result the model sees.'), by }).strict(),
    z.object({ failed: z.string().max(65536).describe('It did not happen: why (a Failed result).'), by }).strict(),
    z.object({ retry: z.literal(true).describe('Run the call again (as a fresh attempt).'), by }).strict(),
  ])
  .meta({ id: 'ToolCallResolution' });
export const ConfigureBody = ConfigChange.meta({ id: 'ConfigChange' });
export const StopBody = z.object({ reason: z.string().max(4096).optional() }).strict();
export const RetryResult = z.object({
  retried: AgentErrorSchema.nullable().describe('The error the agent was blocked on and now retries; null: it was not blocked, nothing was sent.'),
});
export const StopResult = z.object({ stopping: z.literal(true) });
export const ResetResult = z.object({ reset: z.literal(true) });
export const SnapshotSchema = AgentSnapshot.meta({ id: 'AgentSnapshot' });

const By = z.string().max(200).optional().describe('Who wrote (recorded).');
/** `{ set }` replaces the notebook, `{ append }` adds to it. */
export const NotebookWriteBody = z
  .union([z.object({ set: z.string(), by: By }).strict(), z.object({ append: z.string(), by: By }).strict()])
  .meta({ id: 'NotebookWrite' });
agree<Same<z.infer<typeof NotebookWriteBody>, NotebookWrite>>();
export const NotebookResult = z.object({ notebook: z.string(), seq: z.number().describe('The history entry that records the write.') });
agree<Same<z.infer<typeof NotebookResult>, NotebookWriteResult>>();
export const NotebookView = z.object({ notebook: z.string() });
export const TasksView = z.object({ tasks: z.array(TaskSchema) });

export const WaitPath = AgentPath.extend({ waitId: z.string().min(1).max(400).describe('A wait id as the state lists it (waits[].waitId).') });
/** POST /agents/{id}/waits/{waitId}: the answer to one wait. */
export const WaitAnswerRequest = z
  .object({
    answer: WaitAnswerBody.describe(
      'approval: {"approved": true|false, "reason"?, "remember"?: true}; unknown_outcome: {"done": "…"} | {"failed": "…"} | {"retry": true}; question: {"text": "the reply"}; elicitation: {"action": "accept", "content": {…}} | {"action": "decline"} | {"action": "cancel"}.',
    ),
    by: z.string().max(200).optional().describe('Who answers (recorded).'),
    door: Door.optional().describe('Through which door (recorded; default `rest`).'),
  })
  .strict()
  .meta({ id: 'WaitAnswer' });
export const WaitAnsweredSchema = z
  .object({
    waitId: z.string(),
    kind: z.enum(['approval', 'question', 'unknown_outcome', 'elicitation']),
    inputSeq: z.number().optional().describe("question: the reply's input number (its turn's answer: GET /agents/{id}/answers/{inputSeq})."),
    status: AgentStatusSchema,
  })
  .meta({ id: 'WaitAnswered' });
export const ToolRulesSchema = z.array(ToolRule).meta({ id: 'ToolRules' });
export const ToolRulesBody = z
  .object({ rules: ToolRulesSchema.describe('The whole list, in the order the rules apply (`[]` removes them).'), by: z.string().max(200).optional() })
  .strict();
export const ToolRulesResult = z.object({
  rules: ToolRulesSchema,
  seq: z.number().optional().describe('The `tool_rules` history entry that recorded the change.'),
});
