/**
 * AgentSnapshot (seed 004): the whole agent as versioned JSON. It is what continue-as-new carries,
 * what export writes and import reads. No secrets: API keys live only in the worker's environment.
 */
import { z } from 'zod';
import { AgentConfig } from './agent-config';
import { HistoryEntry, JsonValue, ToolCallResult } from './entries';
import { InboxItem } from './input';
import { AgentRunState } from './run-state';
import { ToolCatalog } from './tool-spec';
import { SubAgentCall } from './sub-agents';
import { RefusedAttachments } from './refused-attachments';
import { ArchiveIndex } from './archive';
import { EffectRecord } from './effect-ledger';

export const SNAPSHOT_FORMAT = 'livecontext.agent-snapshot';
/**
 * The largest payload passed inline: Temporal refuses one over 2 MiB (its default blob size limit), and
 * encoding, encryption and metadata add a little. Larger ones need payload offloading.
 */
export const MAX_INLINE_PAYLOAD_BYTES = 1.5 * 1024 * 1024;
export const SNAPSHOT_VERSION = 1;
/** A snapshot whose older entries are in the archive (`archive`); readers before it would lose them, so it says so. */
export const ARCHIVED_SNAPSHOT_VERSION = 2;

const AgentErrorSchema = z.object({
  code: z.string(),
  message: z.string(),
  runState: z.enum(Object.values(AgentRunState) as [AgentRunState, ...AgentRunState[]]),
  at: z.string(),
});

export const ApprovalState = z.discriminatedUnion('status', [
  z.object({ status: z.literal('pending'), reason: z.string(), requestedAt: z.string() }),
  z.object({ status: z.literal('approved'), by: z.string().optional(), door: z.string().optional(), at: z.string() }),
  z.object({ status: z.literal('denied'), reason: z.string().optional(), by: z.string().optional(), door: z.string().optional(), at: z.string() }),
]);
export type ApprovalState = z.infer<typeof ApprovalState>;

/** A durable timer (sleep / wait_until) in progress, so a new run (or an import) waits only what is left. */
export const TimerState = z.object({ startedAt: z.string(), wakeAt: z.string() });
export type TimerState = z.infer<typeof TimerState>;

/** An accepted idempotency key: [key, inputSeq] or [key, inputSeq, fingerprint of the input]. */
export const AcceptedKey = z.union([
  z.tuple([z.string().min(1).max(200), z.number().int().positive(), z.string().min(1).max(64)]),
  z.tuple([z.string().min(1).max(200), z.number().int().positive()]),
]);
export type AcceptedKey = z.infer<typeof AcceptedKey>;

export const AgentSnapshot = z.object({
  format: z.literal(SNAPSHOT_FORMAT),
  version: z.union([z.literal(SNAPSHOT_VERSION), z.literal(ARCHIVED_SNAPSHOT_VERSION)]),
  /** The id of the agent it was exported from (informative; import may give another). */
  sourceAgentId: z.string().optional(),
  config: AgentConfig,
  /** History: every entry, or (version 2) the working set after the archive's entries. */
  entries: z.array(HistoryEntry),
  /** Version 2: the older entries' archive (segments in the blob store; see archive.ts). */
  archive: ArchiveIndex.optional(),
  /** The sequence number the next history entry gets. */
  nextSeq: z.number().int().positive(),
  /** Results of tool calls already run for the last model output, not yet appended. */
  pendingToolResults: z.array(ToolCallResult),
  /** Accepted inputs not yet pulled by the state machine, in order. */
  inbox: z.array(InboxItem),
  nextInputSeq: z.number().int().positive(),
  consumedInputSeq: z.number().int().nonnegative(),
  lastError: AgentErrorSchema.optional(),
  /** Approval state of the current batch's tool calls, by toolCallId. */
  approvals: z.record(z.string(), ApprovalState).default({}),
  /** Timers of the current batch's sleep/wait_until calls still running, by toolCallId. */
  timers: z.record(z.string(), TimerState).optional(),
  /** Widget state by widget name (seed 003; see widgets/registry). Also rebuildable from `entries` alone. */
  widgets: z
    .object({ memory_notebook: z.object({ content: z.string() }) })
    .catchall(JsonValue)
    .default({ memory_notebook: { content: '' } }),
  /**
   * Idempotency keys of accepted inputs with their input numbers, oldest first (see AgentInput), and
   * (agents since IDEMPOTENCY_PRINTS_CHANGE) the fingerprint of each input, to refuse a key used again
   * for another input.
   */
  acceptedKeys: z.array(AcceptedKey).max(1000).optional(),
  /** MCP servers' tools as the agent's model calls last discovered them (see ToolCatalog). */
  toolCatalog: ToolCatalog.optional(),
  /** Set by a reset: inputs up to this number were taken before it, so their turns are gone. */
  resetAfterInputSeq: z.number().int().nonnegative().optional(),
  /** Sub-agent calls of the current batch in flight or answered, by toolCallId (see sub-agents). */
  subAgentCalls: z.record(z.string(), SubAgentCall).optional(),
  /** Set by a retry of a hit budget: entries up to this sequence number no longer count against budgets. */
  budgetFromSeq: z.number().int().nonnegative().optional(),
  /** The effect ledger of the current batch's activity calls, by toolCallId (see effect-ledger). */
  effects: z.record(z.string(), EffectRecord).optional(),
  /** Attachments a provider refused for good: later model calls leave them out (see refused-attachments). */
  refusedAttachments: RefusedAttachments.optional(),
});
export type AgentSnapshot = z.infer<typeof AgentSnapshot>;
