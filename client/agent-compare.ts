/**
 * What-if (`livecontext compare`): one fork per model at an input, each running that input's turn again,
 * and what each answered with its usage, cost and duration. The forks remain as agents to go on with.
 */
import { type HistoryEntry, InputRejectedError, type TurnOutcome } from '../agent/index';
import { outcomeText } from './outcome-text';

export interface CompareOptions {
  /** A `model_input` entry: its turn is run again by each fork. */
  at: number;
  /** `provider:model`s, one fork each (at least one, at most 8). */
  models: string[];
  /** The forks' ids (default `<prefix>.<model with : as ->`). */
  forkId?: (model: string) => string;
  /** The start of the forks' default ids (default `<agent>.<seq>`): another compare at the same point needs another. */
  prefix?: string;
  systemInstruction?: string;
  tools?: string[];
}

/** One model's run of the turn. */
export interface CompareResult {
  model: string;
  /** The fork that ran it (an agent like any other). */
  agentId: string;
  status: TurnOutcome['status'];
  /** The answer, or what happened instead (an error, a question). */
  text: string;
  usage: { inputTokens: number; outputTokens: number; cachedInputTokens: number; costUsd: number | null; modelCalls: number };
  /** From the fork's start to the turn's last entry (the fork's own clock: its workflow's). */
  durationMs: number | null;
}

export const MAX_COMPARED_MODELS = 8;

/** The default id of the fork that runs `model`: readable, and an agent id (no spaces or slashes). */
export function compareForkId(agentId: string, seq: number, model: string, prefix = `${agentId}.${seq}`): string {
  return `${prefix}.${model.replace(/[^A-Za-z0-9._-]+/g, '-')}`;
}

export function checkCompareModels(models: readonly string[]): void {
  if (!models.length) throw new InputRejectedError('BAD_COMPARE', 'compare needs at least one model (--models a,b).');
  if (models.length > MAX_COMPARED_MODELS) throw new InputRejectedError('BAD_COMPARE', `compare runs at most ${MAX_COMPARED_MODELS} models at once.`);
  if (new Set(models).size !== models.length) throw new InputRejectedError('BAD_COMPARE', 'compare names each model once.');
}

/** A fork's result, from its outcome and its entries after the fork point (`turn`). */
export function compareResult(model: string, agentId: string, outcome: TurnOutcome, turn: readonly HistoryEntry[], startedAt: Date | undefined): CompareResult {
  let inputTokens = 0;
  let outputTokens = 0;
  let cachedInputTokens = 0;
  let costUsd: number | null = null;
  let modelCalls = 0;
  for (const e of turn) {
    if (e.kind !== 'model_output' && e.kind !== 'compaction') continue;
    modelCalls++;
    inputTokens += e.usage?.inputTokens ?? 0;
    outputTokens += e.usage?.outputTokens ?? 0;
    cachedInputTokens += e.usage?.cachedInputTokens ?? 0;
    if (e.usage?.costUsd !== undefined) costUsd = (costUsd ?? 0) + e.usage.costUsd;
  }
  const last = turn.at(-1);
  const durationMs = startedAt && last ? Math.max(0, Date.parse(last.timestamp) - startedAt.getTime()) : null;
  return {
    model,
    agentId,
    status: outcome.status,
    text: outcomeText(outcome),
    usage: { inputTokens, outputTokens, cachedInputTokens, costUsd, modelCalls },
    durationMs,
  };
}
