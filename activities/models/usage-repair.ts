/**
 * Token counts as a provider reported them, made safe where they enter the framework. An
 * OpenAI-compatible server may send `prompt_tokens: 1e20`, a negative count, NaN or a string; such a
 * value would fail the agent's checks of its state (token counts are safe, non-negative integers) and
 * block the agent, or reach budgets and metrics as nonsense. Each count is repaired instead, and the
 * repair noted on the answer (metadata `usage_repaired`), so the agent goes on.
 */
import type { StreamUsage } from '../../agent/index';

/**
 * No model call reads or writes a billion tokens (a thousand times the largest context window): a count
 * above is the provider's error. The bound also keeps an agent's summed counts far within safe integers.
 */
export const MAX_TOKENS_PER_CALL = 1_000_000_000;

const COUNTS = ['inputTokens', 'outputTokens', 'cachedInputTokens'] as const;

/** `usage` with every count a whole number in [0, MAX_TOKENS_PER_CALL], and what was changed (empty when nothing). */
export function repairStreamUsage(usage: StreamUsage): { usage: StreamUsage; repairs: string[] } {
  const repairs: string[] = [];
  const fixed: Record<string, unknown> = { ...usage };
  for (const key of COUNTS) {
    const value = (usage as Record<string, unknown>)[key];
    if (value === undefined) continue;
    const safe = safeCount(value);
    if (safe === value) continue;
    fixed[key] = safe;
    repairs.push(`${key} ${describe(value)} read as ${safe}`);
  }
  const total = usage.totalTokens;
  const badTotal = total !== undefined && safeCount(total) !== total;
  if (!repairs.length && !badTotal) return { usage, repairs };
  const out = fixed as StreamUsage;
  if (out.cachedInputTokens !== undefined && out.cachedInputTokens > out.inputTokens) out.cachedInputTokens = out.inputTokens;
  // The total is derived (history leaves it out): input plus output, once they are repaired.
  out.totalTokens = (out.inputTokens ?? 0) + (out.outputTokens ?? 0);
  if (badTotal) repairs.push(`totalTokens ${describe(total)} read as ${out.totalTokens}`);
  return { usage: out, repairs };
}

function safeCount(value: unknown): number {
  if (typeof value !== 'number' || !Number.isFinite(value) || value <= 0) return 0;
  return Math.min(Math.round(value), MAX_TOKENS_PER_CALL);
}

function describe(value: unknown): string {
  const text = typeof value === 'string' ? JSON.stringify(value) : String(value);
  return text.length > 24 ? `${text.slice(0, 24)}…` : text;
}
