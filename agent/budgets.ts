/**
 * Budgets that stop a runaway agent at a safe point (before its next model call): model calls, tokens
 * and cost per turn, tokens and cost per UTC day, and consecutive failed tool calls. Counted from the
 * history alone, so a replay, a new run or an import counts the same. A hit budget blocks the agent on
 * an error `Budget.*` that says what to do; `configure` with a higher limit lets it go on, and `retry`
 * grants a fresh allowance from where it stopped (the counts start again after that point).
 */
import { z } from 'zod';
import type { HistoryEntry } from './entries';

export const Budgets = z
  .object({
    /** Model calls in one turn (input to answer). Default 50; 0 = no limit. */
    turnModelCalls: z.number().int().nonnegative().optional(),
    /** Input + output tokens in one turn. */
    turnTokens: z.number().int().positive().optional(),
    /** Cost in US dollars in one turn (from the worker's price table). */
    turnCostUsd: z.number().positive().optional(),
    /** Input + output tokens per UTC day. */
    dayTokens: z.number().int().positive().optional(),
    /** Cost in US dollars per UTC day. */
    dayCostUsd: z.number().positive().optional(),
    /** Failed tool calls in a row. Default 20; 0 = no limit. */
    consecutiveToolFailures: z.number().int().nonnegative().optional(),
  })
  .strict();
export type Budgets = z.infer<typeof Budgets>;

/** What protects an agent whose configuration sets no budget. */
export const DEFAULT_BUDGETS = { turnModelCalls: 50, consecutiveToolFailures: 20 } as const;

/** The workflow patch (StepDeps.since) behind budgets: histories recorded before them replay as they ran. */
export const BUDGETS_CHANGE = 'budgets';

export const BudgetCode = {
  TurnModelCalls: 'Budget.TurnModelCalls',
  TurnTokens: 'Budget.TurnTokens',
  TurnCost: 'Budget.TurnCost',
  DayTokens: 'Budget.DayTokens',
  DayCost: 'Budget.DayCost',
  ToolFailures: 'Budget.ConsecutiveToolFailures',
} as const;

export const isBudgetCode = (code: string | undefined) => !!code?.startsWith('Budget.');

export interface BudgetHit {
  code: string;
  message: string;
}

/**
 * The budget the next model call would exceed, or undefined. `fromSeq`: entries up to it were granted
 * by a retry and no longer count. `now`: the agent's clock, for the UTC day. `archived`: usage of the
 * newest archived day, from entries after `fromSeq` (the turn in progress is never archived).
 */
export function budgetHit(
  entries: readonly HistoryEntry[],
  budgets: Budgets | undefined,
  fromSeq: number,
  now: number,
  archived?: { day: string; tokens: number; costUsd: number },
): BudgetHit | undefined {
  const b = { ...DEFAULT_BUDGETS, ...budgets };
  const turnStart = lastIndex(entries, (e) => e.kind === 'model_input');
  const counted = entries.filter((e, i) => i > turnStart && e.seq > fromSeq);
  const turn = sums(counted);
  const day = new Date(now).toISOString().slice(0, 10);
  const today = sums(entries.filter((e) => e.seq > fromSeq && e.timestamp.slice(0, 10) === day));
  // Today's calls whose entries are archived already (counted as they left the working set).
  if (archived?.day === day) {
    today.tokens += archived.tokens;
    today.cost += archived.costUsd;
  }
  const fix = (field: keyof Budgets) => `Raise budgets.${field} with configure, or retry to allow as much again from here.`;
  if (b.turnModelCalls > 0 && turn.calls >= b.turnModelCalls) {
    return {
      code: BudgetCode.TurnModelCalls,
      message: `This turn made ${turn.calls} model calls, its budget (budgets.turnModelCalls). ${fix('turnModelCalls')}`,
    };
  }
  if (b.turnTokens !== undefined && turn.tokens >= b.turnTokens) {
    return { code: BudgetCode.TurnTokens, message: `This turn used ${turn.tokens} tokens; its budget is ${b.turnTokens}. ${fix('turnTokens')}` };
  }
  if (b.turnCostUsd !== undefined && turn.cost >= b.turnCostUsd) {
    return { code: BudgetCode.TurnCost, message: `This turn cost $${turn.cost.toFixed(4)}; its budget is $${b.turnCostUsd}. ${fix('turnCostUsd')}` };
  }
  if (b.dayTokens !== undefined && today.tokens >= b.dayTokens) {
    return {
      code: BudgetCode.DayTokens,
      message: `Today (${day} UTC) the agent used ${today.tokens} tokens; its budget is ${b.dayTokens}. ${fix('dayTokens')}`,
    };
  }
  if (b.dayCostUsd !== undefined && today.cost >= b.dayCostUsd) {
    return {
      code: BudgetCode.DayCost,
      message: `Today (${day} UTC) the agent spent $${today.cost.toFixed(4)}; its budget is $${b.dayCostUsd}. ${fix('dayCostUsd')}`,
    };
  }
  const failures = trailingToolFailures(counted);
  if (b.consecutiveToolFailures > 0 && failures >= b.consecutiveToolFailures) {
    return {
      code: BudgetCode.ToolFailures,
      message: `The last ${failures} tool calls failed in a row (budgets.consecutiveToolFailures). ${fix('consecutiveToolFailures')}`,
    };
  }
  return undefined;
}

function sums(entries: readonly HistoryEntry[]) {
  let calls = 0;
  let tokens = 0;
  let cost = 0;
  for (const e of entries) {
    if (e.kind !== 'model_output' && e.kind !== 'compaction') continue; // a compaction's summary call costs as any other
    calls++;
    tokens += (e.usage?.inputTokens ?? 0) + (e.usage?.outputTokens ?? 0);
    cost += e.usage?.costUsd ?? 0;
  }
  return { calls, tokens, cost };
}

/** Failed tool results at the end of `entries`, counted across batches until a success. */
function trailingToolFailures(entries: readonly HistoryEntry[]): number {
  let failed = 0;
  for (let i = entries.length - 1; i >= 0; i--) {
    const e = entries[i];
    if (e.kind !== 'tool_results') continue;
    for (let j = e.results.length - 1; j >= 0; j--) {
      if (e.results[j].status !== 'Failed') return failed;
      failed++;
    }
  }
  return failed;
}

function lastIndex<T>(items: readonly T[], test: (item: T) => boolean): number {
  for (let i = items.length - 1; i >= 0; i--) if (test(items[i])) return i;
  return -1;
}
