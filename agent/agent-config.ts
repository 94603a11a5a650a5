/**
 * Per-agent configuration that is not history: which model to call and which tools it may use.
 * (The system instruction is history: a SystemInstructionEntry, so every call renders the one in force.)
 */
import { z } from 'zod';

/** `provider:model`, e.g. `openai:gpt-4.1-mini`, `anthropic:claude-sonnet-4-5`, `demo:offline`. */
export const ModelName = z
  .string()
  .regex(/^[a-z][a-z0-9_-]*:\S+$/, 'a model is named "provider:model", e.g. "openai:gpt-4.1-mini"');

export const AgentConfig = z.object({
  model: ModelName,
  /** Tool names this agent may call; absent means every tool registered on the worker. */
  tools: z.array(z.string()).optional(),
  /** The model's context window in tokens; the context is trimmed to fit. Default: the worker's table. */
  contextWindow: z.number().int().positive().optional(),
});
export type AgentConfig = z.infer<typeof AgentConfig>;

/** A change sent by configure: every field optional; `systemInstruction` becomes a history entry. */
export const ConfigChange = z
  .object({
    model: ModelName.optional(),
    tools: z.array(z.string()).optional(),
    contextWindow: z.number().int().positive().optional(),
    systemInstruction: z.string().max(64 * 1024).optional(),
  })
  .strict();
export type ConfigChange = z.infer<typeof ConfigChange>;
