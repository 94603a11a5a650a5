/**
 * History entries of seed 000, as zod schemas and types that share one name. Every entry carries a
 * sequence number (monotonic per agent, never reused) and a timestamp injected by AgentState.
 * All of it is plain JSON: entries cross the activity boundary and go into snapshots.
 */
import { z } from 'zod';
import { ToolRules } from './tool-rules';
import { Attachment } from './attachments';
import { ResponseSchema } from './response-schema';
import { isPlainJson } from './plain-json';

/** Any JSON value, by zod's union at every level. */
const JsonValueUnion: z.ZodType<JsonValue> = z.lazy(() =>
  z.union([z.string(), z.number(), z.boolean(), z.null(), z.array(JsonValueUnion), z.record(z.string(), JsonValueUnion)]),
);
/** Any JSON value: plain JSON passes at once (plain-json.ts), anything else gets JsonValueUnion's verdict and issues. */
export const JsonValue = z.unknown().superRefine((value, ctx) => {
  if (isPlainJson(value)) return;
  const checked = JsonValueUnion.safeParse(value);
  if (!checked.success) for (const issue of checked.error.issues) ctx.addIssue(issue as Parameters<typeof ctx.addIssue>[0]);
}) as unknown as z.ZodType<JsonValue>;
export type JsonValue = string | number | boolean | null | JsonValue[] | { [key: string]: JsonValue };

/** snake_case keys; at most METADATA_MAX_BYTES per entry (checked in AgentState). */
export const Metadata = z.record(z.string(), JsonValue);
export type Metadata = z.infer<typeof Metadata>;

/** One titled part of a model input (seed 000 `ContentSections`). */
export const ContentSection = z.object({ title: z.string(), content: z.string() });
export type ContentSection = z.infer<typeof ContentSection>;

/** Which provider/model produced an output (seed 000). Required on every ModelOutputEntry. */
export const ModelInvocationDescriptor = z.object({
  /** Provider id from the router, e.g. `openai`, `anthropic`, `scripted`. */
  providerId: z.string().min(1),
  /** Wire specification, e.g. `openai-chat-completions`, `anthropic-messages`. */
  specification: z.string().min(1),
  /** The provider's model name, e.g. `gpt-4.1-mini`. */
  model: z.string().min(1),
});
export type ModelInvocationDescriptor = z.infer<typeof ModelInvocationDescriptor>;

/** A tool call as the model declared it. `rawArguments` is always kept, even when it does not parse. */
export const ToolCallRequest = z.object({
  toolName: z.string(),
  toolCallId: z.string().min(1),
  rawArguments: z.string(),
  /** Parsed arguments, present when `rawArguments` parsed as a JSON object. */
  arguments: z.record(z.string(), JsonValue).optional(),
  /** Why `rawArguments` did not parse. */
  parseError: z.string().optional(),
});
export type ToolCallRequest = z.infer<typeof ToolCallRequest>;

export const ToolExecutionStatus = z.enum(['Success', 'Failed', 'Skipped']);
export type ToolExecutionStatus = z.infer<typeof ToolExecutionStatus>;

/** The outcome of one tool call, matched to its request by `toolCallId`. */
export const ToolCallResult = z.object({
  toolName: z.string(),
  toolCallId: z.string().min(1),
  status: ToolExecutionStatus,
  /** Text the model sees. For failures it says what to fix. */
  result: z.string(),
  /** Wall time of the execution in milliseconds, when it ran. */
  elapsedMs: z.number().nonnegative().optional(),
  metadata: Metadata.optional(),
});
export type ToolCallResult = z.infer<typeof ToolCallResult>;

/** Token counts a provider reported for one call. */
export const TokenUsage = z.object({
  /** All input tokens of the call, cached ones included. */
  inputTokens: z.number().int().nonnegative(),
  outputTokens: z.number().int().nonnegative(),
  /** The part of `inputTokens` read from the provider's prompt cache. */
  cachedInputTokens: z.number().int().nonnegative().optional(),
  /** Cost of the call in US dollars, from the worker's price table, when it has one for the model. */
  costUsd: z.number().nonnegative().optional(),
});
export type TokenUsage = z.infer<typeof TokenUsage>;

const EntryBase = z.object({
  /** 1-based, strictly increasing, never reused within an agent. */
  seq: z.number().int().positive(),
  /** ISO-8601, injected by AgentState from the (deterministic) clock it was given. */
  timestamp: z.string(),
  metadata: Metadata.optional(),
});

/** An input sent as the answer to an open question (`ask_user`): which wait it answers, through which door, by whom. */
export const WaitReply = z.object({ waitId: z.string().min(1).max(400), door: z.string().max(40).optional(), by: z.string().max(200).optional() });
export type WaitReply = z.infer<typeof WaitReply>;

export const ModelInputEntry = EntryBase.extend({
  kind: z.literal('model_input'),
  sections: z.array(ContentSection).min(1),
  /** The inbox sequence number of the input this entry came from. */
  inputSeq: z.number().int().positive().optional(),
  /** Who sent it (a person, a service name); free text. */
  sender: z.string().optional(),
  /** Images that came with it (seed 000 `Attachments`); absent when none, as in entries made before them. */
  attachments: z.array(Attachment).optional(),
  /** The JSON Schema the final answer of this input's turn must match (a typed answer); absent: free text. */
  responseSchema: ResponseSchema.optional(),
  /** Set when this input answers the agent's question (a wait): only the first such answer is taken. */
  answers: WaitReply.optional(),
});
export type ModelInputEntry = z.infer<typeof ModelInputEntry>;

export const ModelOutputEntry = EntryBase.extend({
  kind: z.literal('model_output'),
  contents: z.array(z.string()),
  thinking: z.string().optional(),
  /** Provider signature of the thinking (Anthropic), needed to send it back to the same provider. */
  thinkingSignature: z.string().optional(),
  toolCalls: z.array(ToolCallRequest),
  invocation: ModelInvocationDescriptor,
  usage: TokenUsage.optional(),
});
export type ModelOutputEntry = z.infer<typeof ModelOutputEntry>;

export const ToolResultsEntry = EntryBase.extend({
  kind: z.literal('tool_results'),
  results: z.array(ToolCallResult),
  /**
   * Why the batch as a whole could not run (seed 000 `ExecuteError`). Then `results` may be empty: the
   * calls without a result are shown to the model as failed with this reason.
   */
  executeError: z.string().optional(),
});
export type ToolResultsEntry = z.infer<typeof ToolResultsEntry>;

/**
 * Not a context message: the system instruction in force from this entry on. Recorded in history so
 * rendering at any sequence bound (and replay) sees the instruction that applied then.
 */
export const SystemInstructionEntry = EntryBase.extend({
  kind: z.literal('system_instruction'),
  instruction: z.string(),
});
export type SystemInstructionEntry = z.infer<typeof SystemInstructionEntry>;

/**
 * Not a context message: a write to a widget by the host (a person or a service, not the model), e.g.
 * `livecontext notebook --set`. Recorded so a widget's state is rebuilt from history alone (seed 000
 * `UpdateMemoryNotebook`); the model sees its effect in the Live Screen.
 */
export const WidgetWriteEntry = EntryBase.extend({
  kind: z.literal('widget_write'),
  /** The widget's name, e.g. `memory_notebook`. */
  widget: z.string().min(1),
  /** What the widget was asked to do, in its own terms (e.g. `{ "set": "…" }`). */
  write: JsonValue,
  /** Who wrote (free text), when the host said. */
  by: z.string().optional(),
});
export type WidgetWriteEntry = z.infer<typeof WidgetWriteEntry>;

/**
 * Not a context message: the agent decided to wait for new input although its turn has no answer
 * (seed 004: "the last entry is a ToolResultsEntry and the agent decides to wait for new user input").
 * Recorded when a person interrupts the running turn, or when the model asks the user a question
 * (`ask_user`); the next input continues the conversation from here.
 */
export const TurnEndEntry = EntryBase.extend({
  kind: z.literal('turn_end'),
  reason: z.enum(['interrupted', 'ask_user']),
  /** The question the model asked (reason `ask_user`). */
  question: z.string().optional(),
  /** Who interrupted (free text), when the host said. */
  by: z.string().optional(),
});
export type TurnEndEntry = z.infer<typeof TurnEndEntry>;

/**
 * Not a context message: a summary of the conversation through `throughSeq`, made by a model call when
 * the context would overflow (policy `compact`). Later calls render the summary in place of every
 * context message up to `throughSeq` (earlier summaries included); the entries themselves stay in the
 * history. A cut is only ever at a turn or tool call/result boundary.
 */
export const CompactionEntry = EntryBase.extend({
  kind: z.literal('compaction'),
  summary: z.string().min(1),
  /** The summary stands for every entry up to this seq, earlier summaries included. */
  throughSeq: z.number().int().positive(),
  /** The model that wrote the summary. */
  invocation: ModelInvocationDescriptor,
  usage: TokenUsage.optional(),
});
export type CompactionEntry = z.infer<typeof CompactionEntry>;

/**
 * Not a context message: a model call (or a compaction's summary call) that failed after its retries and
 * left the agent blocked on the error (seed 004: "on error stay in state"). `lastError` says so while it
 * lasts; this entry keeps it in the record, with when (its timestamp). The model never sees it; a retry
 * that succeeds follows it with the call's output.
 */
export const ModelFailureEntry = EntryBase.extend({
  kind: z.literal('model_failure'),
  /** The framework's error code: a `ModelError.*` type (activities/models/provider-errors.ts) or another. */
  code: z.string().min(1),
  /** The error's message (at most MODEL_FAILURE_MESSAGE_MAX characters). */
  message: z.string(),
  /** The model called last (`provider:model`); models that failed before it in the same step are in `fallbackFrom`. */
  model: z.string().min(1),
  /** What the call was for: the agent's next output, or a compaction's summary. */
  call: z.enum(['model', 'compaction']),
  /** How many times the call ran, when known (Temporal's retries of the call ran out). */
  attempts: z.number().int().positive().optional(),
  /** Models of the agent's `fallbackModels` chain that failed before `model`, in order, with their codes. */
  fallbackFrom: z.array(z.object({ model: z.string(), code: z.string() })).optional(),
});
export type ModelFailureEntry = z.infer<typeof ModelFailureEntry>;

/**
 * Not a context message: the agent was taken back to entry `toSeq` (issue 30, time travel) and goes on
 * from there as if what followed had not happened. The entries after `toSeq` (and before this one) stay
 * in history, marked as rewound by readers, but leave the model's context, the widgets and the budgets
 * (see visibleEntries in time-travel.ts). `toSeq` is a turn's end or a model input (see travelPoint).
 */
export const RewindEntry = EntryBase.extend({
  kind: z.literal('rewind'),
  toSeq: z.number().int().positive(),
  /** Who rewound (free text), when the host said. */
  by: z.string().optional(),
  /** Why (free text), when the host said. */
  reason: z.string().optional(),
});
export type RewindEntry = z.infer<typeof RewindEntry>;

/**
 * Not a context message: the agent's tool rules (approval policy, see tool-rules.ts) from this entry on —
 * set by a person or a service (`livecontext policy`), or by an approval given with "don't ask again".
 */
export const ToolRulesEntry = EntryBase.extend({
  kind: z.literal('tool_rules'),
  rules: ToolRules,
  /** `set`: the whole list was replaced; `remember`: an approval added an allow rule for its tool. */
  change: z.enum(['set', 'remember']),
  /** Who changed them (free text), when the host said. */
  by: z.string().optional(),
});
export type ToolRulesEntry = z.infer<typeof ToolRulesEntry>;

/**
 * Not a context message: a change of the A2A push notification configs (see a2a-push.ts) — one set or
 * removed by a caller, or a notification whose delivery failed after its retries. Never a credential.
 */
export const A2aPushEntry = EntryBase.extend({
  kind: z.literal('a2a_push'),
  change: z.enum(['set', 'delete', 'failed']),
  configId: z.string(),
  /** The task's turn. */
  inputSeq: z.number().int().positive(),
  url: z.string().optional(),
  /** `failed`: the notification that was not delivered, and why. */
  deliveryId: z.string().optional(),
  state: z.string().optional(),
  error: z.string().optional(),
  by: z.string().optional(),
});
export type A2aPushEntry = z.infer<typeof A2aPushEntry>;

/** A model failure's message is cut here: a provider's error text can be long, the record stays light. */
export const MODEL_FAILURE_MESSAGE_MAX = 2000;

export const HistoryEntry = z.discriminatedUnion('kind', [
  ModelInputEntry,
  ModelOutputEntry,
  ToolResultsEntry,
  SystemInstructionEntry,
  WidgetWriteEntry,
  TurnEndEntry,
  CompactionEntry,
  ModelFailureEntry,
  RewindEntry,
  ToolRulesEntry,
  A2aPushEntry,
]);
export type HistoryEntry = z.infer<typeof HistoryEntry>;

/** Entries that project into the model's context (seed 000: only these implement IContextMessage). */
export type ContextualEntry = ModelInputEntry | ModelOutputEntry | ToolResultsEntry;

export function isContextual(entry: HistoryEntry): entry is ContextualEntry {
  return entry.kind === 'model_input' || entry.kind === 'model_output' || entry.kind === 'tool_results';
}

/** The newest compaction at or before `uptoSeq`, if any: the summary a model call renders. */
export function lastCompaction(entries: readonly HistoryEntry[], uptoSeq = Number.POSITIVE_INFINITY): CompactionEntry | undefined {
  for (let i = entries.length - 1; i >= 0; i--) {
    const e = entries[i];
    if (e.kind === 'compaction' && e.seq <= uptoSeq) return e;
  }
  return undefined;
}
