/**
 * Optional cost accounting: US dollars per million tokens, per `provider:model` (longest matching
 * prefix wins). Give the worker a table (option `prices`, or a JSON file in LIVECONTEXT_PRICES).
 */
import { readFileSync } from 'node:fs';
import type { TokenUsage } from '../../agent/index';

export interface Price {
  /** $ per million input tokens that were not read from a cache. */
  input: number;
  output: number;
  /** $ per million cached input tokens (default: `input`). */
  cachedInput?: number;
}
export type PriceTable = Record<string, Price>;

export function loadPriceTable(file = process.env.LIVECONTEXT_PRICES): PriceTable | undefined {
  return file ? (JSON.parse(readFileSync(file, 'utf8')) as PriceTable) : undefined;
}

export function costOf(table: PriceTable | undefined, model: string, usage: TokenUsage): number | undefined {
  if (!table) return undefined;
  const key = Object.keys(table)
    .filter((k) => model.startsWith(k))
    .sort((a, b) => b.length - a.length)[0];
  if (!key) return undefined;
  const p = table[key];
  const cached = usage.cachedInputTokens ?? 0;
  const usd = ((usage.inputTokens - cached) * p.input + cached * (p.cachedInput ?? p.input) + usage.outputTokens * p.output) / 1e6;
  return Math.round(usd * 1e8) / 1e8;
}
