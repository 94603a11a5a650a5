/**
 * Per-agent configuration that is not history: which model to call and which tools it may use.
 * (The system instruction is history: a SystemInstructionEntry, so every call renders the one in force.)
 */
import { z } from 'zod';
import { Budgets } from './budgets';
import { ToolRules } from './tool-rules';
import { A2aPushConfig, MAX_A2A_PUSH_CONFIGS } from './a2a-push';

/** `provider:model`, e.g. `openai:gpt-4.1-mini`, `anthropic:claude-sonnet-4-6`, `demo:offline`. */
export const ModelName = z.string().regex(/^[a-z][a-z0-9_-]*:\S+$/, 'a model is named "provider:model", e.g. "openai:gpt-4.1-mini"');

/**
 * Models tried in order when a model call fails in a way another model may not (see agent/model-step.ts).
 * Short on purpose: each failed model costs its retries first, and the output records every one tried.
 */
export const FallbackModels = z.array(ModelName).max(4, 'at most 4 fallback models');

/** `auto`, `required`, `none`, or one named tool (seed 002 ToolChoice). */
export const ToolChoiceSchema = z.union([z.enum(['auto', 'required', 'none']), z.object({ name: z.string() }).strict()]);

/**
 * Request fields the provider adapters own (the conversation, streaming, tools) or set from the typed
 * params; `params.extra` may not set them. OpenAI's and Anthropic's together, so a config stays valid
 * when the agent changes provider.
 */
export const RESERVED_EXTRA_KEYS: readonly string[] = [
  'model',
  'messages',
  'system',
  'stream',
  'stream_options',
  'tools',
  'tool_choice',
  'functions',
  'function_call',
  'n',
  'max_tokens',
  'max_completion_tokens',
  'temperature',
  'top_p',
  'stop',
  'stop_sequences',
];

/** Provider-specific extras merged into the request body (e.g. `{ "thinking": {...} }` for Anthropic). */
const ExtraRequestFields = z.record(z.string(), z.unknown()).superRefine((extra, ctx) => {
  if (JSON.stringify(extra).length > 16 * 1024) ctx.addIssue({ code: 'custom', message: 'is over 16 KiB of JSON' });
  const reserved = Object.keys(extra).filter((key) => RESERVED_EXTRA_KEYS.includes(key));
  if (reserved.length === 0) return;
  ctx.addIssue({
    code: 'custom',
    message:
      `may not set ${reserved.map((k) => `"${k}"`).join(', ')}: the adapter sets the model, messages, system, streaming and tools itself, ` +
      'and temperature, top_p, stop, max tokens and tool_choice from params (temperature, topP, stopSequences, maxTokens, toolChoice)',
  });
});

/**
 * Model parameters (seed 002 ModelConfig, without the model id), as an agent holds them. A stored
 * configuration stays readable even if its `extra` names a reserved key (accepted before they were
 * reserved): the adapters leave those keys out of requests. New configurations use NewModelParams.
 */
export const ModelParams = z
  .object({
    temperature: z.number().min(0).max(2).optional(),
    maxTokens: z.number().int().positive().optional(),
    topP: z.number().min(0).max(1).optional(),
    stopSequences: z.array(z.string()).max(4).optional(),
    toolChoice: ToolChoiceSchema.optional(),
    /** Provider-specific extras merged into the request body; none of RESERVED_EXTRA_KEYS. */
    extra: z.record(z.string(), z.unknown()).optional(),
  })
  .strict();
export type ModelParams = z.infer<typeof ModelParams>;

/** Parameters a start or a configure may set: `extra` without the keys the adapters own. */
export const NewModelParams = ModelParams.extend({ extra: ExtraRequestFields.optional() });

/** A sub-agent's name: its tool is `ask_<name>`. */
export const SubAgentName = z.string().regex(/^[a-z][a-z0-9_]{0,30}$/, 'a sub-agent name is lowercase letters, digits and _, at most 31');

/**
 * A sub-agent the model may delegate to (tool `ask_<name> {task}`): each call starts a child agent with
 * this configuration, the task as its first input, and the child's answer as the call's result.
 */
export const SubAgentProfile = z
  .object({
    /** What the model is told this sub-agent is for (the tool's description). */
    description: z.string().max(1000).optional(),
    model: ModelName,
    systemInstruction: z
      .string()
      .max(64 * 1024)
      .optional(),
    fallbackModels: FallbackModels.optional(),
    params: ModelParams.optional(),
    tools: z.array(z.string().min(1).max(128)).max(512).optional(),
    parallelTools: z.boolean().optional(),
    /** How the child makes its model calls (see AgentConfig.modelCalls); not the parent's. */
    modelCalls: z.enum(['activity', 'local']).optional(),
    approval: z.record(z.string().max(128), z.enum(['always', 'never'])).optional(),
    /** Default: the parent's budgets. */
    budgets: Budgets.optional(),
    /** The child may delegate to the parent's sub-agents in turn (up to the depth limit). */
    canDelegate: z.boolean().optional(),
  })
  .strict();
export type SubAgentProfile = z.infer<typeof SubAgentProfile>;

export const SubAgents = z.record(SubAgentName, SubAgentProfile).refine((r) => Object.keys(r).length <= 8, 'at most 8 sub-agents');

/** Set on a child agent: who delegated to it, for which call, and how deep it is (1 = a child). */
export const DelegatedBy = z.object({ agentId: z.string().min(1), toolCallId: z.string().min(1), depth: z.number().int().positive() }).strict();
export type DelegatedBy = z.infer<typeof DelegatedBy>;

/** Set on a fork (see agent/fork.ts): the agent, its run and the entry it was forked from. */
export const ForkedFrom = z.object({ agentId: z.string().min(1), runId: z.string().min(1), seq: z.number().int().positive() }).strict();
export type ForkedFrom = z.infer<typeof ForkedFrom>;

/**
 * What happens when the model's context fills (see docs/long-running-agents.md). Every field optional:
 * an agent that sets none compacts at 0.8 of the input budget with its own model.
 */
export const ContextPolicy = z
  .object({
    /** `compact` (default): summarise the oldest turns into a compaction entry; `trim`: leave them out of the request. */
    policy: z.enum(['compact', 'trim']).optional(),
    /** The model that writes summaries (a cheaper one, say). Default: the agent's `model`. */
    compactionModel: ModelName.optional(),
    /** The share of the input budget (window minus output reserve) at which the agent compacts. Default 0.8. */
    compactAt: z.number().min(0.5).max(0.95).optional(),
    /** Anthropic's prompt cache lifetime: `1h` for agents that wait longer than 5 minutes between calls. Default: the provider's (5m). */
    cacheTtl: z.enum(['5m', '1h']).optional(),
  })
  .strict();
export type ContextPolicy = z.infer<typeof ContextPolicy>;

/** The threshold of policy `compact` when the agent sets none. */
export const DEFAULT_COMPACT_AT = 0.8;

export const AgentConfig = z.object({
  model: ModelName,
  /**
   * The seeds' planner/executor strategy: when set, calls that follow tool results go to this model,
   * and calls that follow input go to `model`.
   */
  executorModel: ModelName.optional(),
  /**
   * `provider:model`s tried in order when the call to the phase's model (`model` or `executorModel`)
   * fails after its retries, or at once with an error no retry fixes but another model may (an outage,
   * a missing key). Every call starts again from the phase's model. Absent or empty: no fallback.
   */
  fallbackModels: FallbackModels.optional(),
  params: ModelParams.optional(),
  /** Tool names this agent may call; absent means every tool registered on the worker. */
  tools: z.array(z.string()).optional(),
  /** The model's context window in tokens; the context is compacted or trimmed to fit. Default: the worker's table. */
  contextWindow: z.number().int().positive().optional(),
  /** What happens when the context fills: compaction (default) or trimming (see ContextPolicy). */
  context: ContextPolicy.optional(),
  /** Run all tool calls of one model output concurrently (results still recorded in call order). */
  parallelTools: z.boolean().optional(),
  /**
   * How model calls run. `activity` (default): regular activities, which stream partial output to readers.
   * `local`: local activities inside the workflow task, one workflow task per plain turn and about half the
   * latency, but no partial output (the answer arrives whole) and a call is retried whole after a worker
   * crash (docs/cost.md, "Local model calls").
   */
  modelCalls: z.enum(['activity', 'local']).optional(),
  /**
   * Per-tool approval for this agent: `always` (a person approves every call), `never` (skip the
   * tool's own policy). Tools not listed follow the policy they were defined with.
   */
  approval: z.record(z.string(), z.enum(['always', 'never'])).optional(),
  /**
   * Ordered approval rules over tool names and argument values (see tool-rules.ts): the first that
   * matches a call decides (allow, ask, deny) before `approval` and the tool's own policy.
   */
  toolRules: ToolRules.optional(),
  /** A2A push notification configs of the agent's tasks (see a2a-push.ts); set through the gateway's A2A endpoint. */
  a2aPush: z.array(A2aPushConfig).max(MAX_A2A_PUSH_CONFIGS).optional(),
  /**
   * Continue-as-new when the run's history passes this many bytes (or when Temporal suggests it).
   * Default 8 MiB. Lossless: the new run carries the whole agent.
   */
  historyBudgetBytes: z.number().int().positive().optional(),
  /**
   * How much of the agent's history the workflow holds (JSON bytes, default 64 KiB): past twice this, the
   * oldest whole turns are sealed into the archive (see archive.ts). At least 16 KiB.
   */
  workingSetBytes: z
    .number()
    .int()
    .min(16 * 1024)
    .optional(),
  /** Limits that stop a runaway agent (see agent/budgets.ts); unset ones take DEFAULT_BUDGETS. */
  budgets: Budgets.optional(),
  /** Sub-agents the model may delegate to (see SubAgentProfile). */
  subAgents: SubAgents.optional(),
  /** Set when this agent is a sub-agent (a child workflow of another agent). */
  delegatedBy: DelegatedBy.optional(),
  /** Set when this agent is a fork of another: its lineage (`livecontext fork`). */
  forkedFrom: ForkedFrom.optional(),
});
export type AgentConfig = z.infer<typeof AgentConfig>;

/** What a new agent may be started with (checked by the client before it starts one). */
/** Bounded lists for new configurations: a configuration is carried in every run and snapshot. */
const ToolNames = z.array(z.string().min(1).max(128)).max(512);
const ApprovalPolicy = z.record(z.string().max(128), z.enum(['always', 'never'])).refine((r) => Object.keys(r).length <= 512, 'at most 512 tools');

export const NewAgentConfig = AgentConfig.extend({ params: NewModelParams.optional(), tools: ToolNames.optional(), approval: ApprovalPolicy.optional() });

/** A change sent by configure: every field optional; `systemInstruction` becomes a history entry. */
export const ConfigChange = z
  .object({
    model: ModelName.optional(),
    executorModel: ModelName.optional(),
    /** Replaces the list; `[]` removes it. */
    fallbackModels: FallbackModels.optional(),
    params: NewModelParams.optional(),
    tools: ToolNames.optional(),
    contextWindow: z.number().int().positive().optional(),
    /** Replaces the context policy as a whole; `{}` returns to the defaults. */
    context: ContextPolicy.optional(),
    parallelTools: z.boolean().optional(),
    /** Takes effect at the next model call. */
    modelCalls: z.enum(['activity', 'local']).optional(),
    approval: ApprovalPolicy.optional(),
    historyBudgetBytes: z.number().int().positive().optional(),
    workingSetBytes: z
      .number()
      .int()
      .min(16 * 1024)
      .optional(),
    /** Replaces the agent's budgets as a whole; `{}` returns to the defaults. */
    budgets: Budgets.optional(),
    /** Replaces the sub-agent profiles as a whole; `{}` removes them. */
    subAgents: SubAgents.optional(),
    systemInstruction: z
      .string()
      .max(64 * 1024)
      .optional(),
  })
  .strict();
export type ConfigChange = z.infer<typeof ConfigChange>;
