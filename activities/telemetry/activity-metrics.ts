/**
 * livecontext's metrics recorded in activities, through the activity's Temporal metric meter: they
 * leave by the worker's metrics exporter (common/metrics.ts) with Temporal's own, tagged with
 * namespace, task queue and activity type. A no-op when metrics are off. Labels are bounded: model ids,
 * tool names, outcome kinds — never an agent id or a message.
 *
 * - `livecontext_model_calls{model, provider, outcome}`: each attempt at a model stream; outcome `ok`
 *   or the error's type (`ModelError.RateLimited`, `ModelError.Connection`…).
 * - `livecontext_model_tokens{model, kind}`: input, output and cached input tokens the provider reported.
 * - `livecontext_model_cache_hit_ratio{model}`: per call, cached input / input (0–1), a histogram: the
 *   prompt cache's hit ratio (the token counters give the overall one: cached_input / input).
 * - `livecontext_compactions{model}`: compactions' summary calls that succeeded (policy `compact`).
 * - `livecontext_model_cost_microusd{model}`: the cost from the worker's price table, in millionths of
 *   a dollar (Temporal's counters count integers); nothing for a model without a price.
 * - `livecontext_tool_calls{tool, status}` and `livecontext_tool_failures{tool, kind}`: every tool run,
 *   and the failed ones by why (error, timeout, bad_arguments, unknown_tool, missing_tool, outcome_unknown).
 */
import { Context } from '@temporalio/activity';
import type { MetricMeter } from '@temporalio/common';
import type { ApprovalRequired, OutcomeUnknown, ToolCallResult } from '../../agent/index';

/** Why a tool run failed, as a label. */
export type ToolFailureKind = 'error' | 'timeout' | 'bad_arguments' | 'unknown_tool' | 'missing_tool' | 'outcome_unknown';

interface Instruments {
  modelCalls: ReturnType<MetricMeter['createCounter']>;
  tokens: ReturnType<MetricMeter['createCounter']>;
  cacheHitRatio: ReturnType<MetricMeter['createHistogram']>;
  compactions: ReturnType<MetricMeter['createCounter']>;
  cost: ReturnType<MetricMeter['createCounter']>;
  toolCalls: ReturnType<MetricMeter['createCounter']>;
  toolFailures: ReturnType<MetricMeter['createCounter']>;
}

/** One set per meter: creating an instrument goes down to Core. */
const byMeter = new WeakMap<MetricMeter, Instruments>();

function instrumentsOf(meter: MetricMeter): Instruments {
  let found = byMeter.get(meter);
  if (!found) {
    found = {
      modelCalls: meter.createCounter('livecontext_model_calls', '1', 'Model stream attempts, by model and outcome (ok or the error type).'),
      tokens: meter.createCounter('livecontext_model_tokens', '1', 'Tokens the providers reported, by model and kind (input, output, cached_input).'),
      cacheHitRatio: meter.createHistogram(
        'livecontext_model_cache_hit_ratio',
        'float',
        '1',
        'Per model call, cached input tokens / input tokens (0–1), by model.',
      ),
      compactions: meter.createCounter('livecontext_compactions', '1', 'Compactions (summary calls of policy compact) that succeeded, by model.'),
      cost: meter.createCounter('livecontext_model_cost_microusd', '1', 'Cost of model calls by model from the price table, in millionths of a US dollar.'),
      toolCalls: meter.createCounter('livecontext_tool_calls', '1', 'Tool runs by tool and status (Success, Failed, ApprovalRequired, OutcomeUnknown).'),
      toolFailures: meter.createCounter(
        'livecontext_tool_failures',
        '1',
        'Failed tool runs by tool and kind (error, timeout, bad_arguments, unknown_tool, missing_tool, outcome_unknown).',
      ),
    };
    byMeter.set(meter, found);
  }
  return found;
}

/** The Temporal runtime's meter, once a livecontext worker runs in this process (useWorkerMetricMeter). */
let workerMeter: MetricMeter | undefined;

/**
 * Record on instruments made once from `meter` (the runtime's; createLivecontextWorker sets it). The
 * activity's own meter (`Context.metricMeter`) is a new wrapper for every activity, so instruments made
 * from it were made again at every call; the tags it adds (namespace, task queue, activity type) are
 * added at each record instead. Tags an activity interceptor's `getMetricTags` adds are not (livecontext's
 * workers have none). Without it (an activity run elsewhere, e.g. in a mock environment) the activity's meter serves.
 */
export function useWorkerMetricMeter(meter: MetricMeter): void {
  workerMeter = meter;
}

/** The instruments to record on, and the tags to record with. */
function recorder(): { m: Instruments; tags: (own: Record<string, string>) => Record<string, string> } {
  const ctx = Context.current();
  if (!workerMeter) return { m: instrumentsOf(ctx.metricMeter), tags: (own) => own };
  const { namespace, taskQueue, activityType } = ctx.info;
  return { m: instrumentsOf(workerMeter), tags: (own) => ({ namespace, taskQueue, activityType, ...own }) };
}

/** Metrics must never fail the call they describe. */
function safely(record: () => void): void {
  try {
    record();
  } catch (err) {
    Context.current().log.warn('Could not record a metric', { error: String(err) });
  }
}

/** One model stream attempt: its outcome, and on success its tokens and cost. */
export function recordModelCall(
  model: string,
  provider: string,
  outcome: { ok: true; usage?: { inputTokens: number; outputTokens: number; cachedInputTokens?: number }; costUsd?: number } | { ok: false; error: unknown },
): void {
  safely(() => {
    const { m, tags } = recorder();
    if (!outcome.ok) {
      const type = (outcome.error as { type?: unknown })?.type;
      m.modelCalls.add(1, tags({ model, provider, outcome: typeof type === 'string' ? type : ((outcome.error as Error)?.name ?? 'Error') }));
      return;
    }
    m.modelCalls.add(1, tags({ model, provider, outcome: 'ok' }));
    const usage = outcome.usage;
    if (usage) {
      const cached = usage.cachedInputTokens ?? 0;
      if (usage.inputTokens > 0) m.tokens.add(Math.round(usage.inputTokens), tags({ model, kind: 'input' }));
      if (usage.outputTokens > 0) m.tokens.add(Math.round(usage.outputTokens), tags({ model, kind: 'output' }));
      if (cached > 0) m.tokens.add(Math.round(cached), tags({ model, kind: 'cached_input' }));
      if (usage.inputTokens > 0) m.cacheHitRatio.record(Math.min(1, cached / usage.inputTokens), tags({ model }));
    }
    if (outcome.costUsd !== undefined && outcome.costUsd > 0) m.cost.add(Math.round(outcome.costUsd * 1e6), tags({ model }));
  });
}

/** One tool run and, if it failed, why. */
export function recordToolRun(tool: string, result: ToolCallResult | ApprovalRequired | OutcomeUnknown, failure: ToolFailureKind | undefined): void {
  safely(() => {
    const { m, tags } = recorder();
    // A name a model made up is not a label: models could invent any number of them.
    if (failure === 'unknown_tool') tool = '(unknown)';
    const status = 'approvalRequired' in result ? 'ApprovalRequired' : 'outcomeUnknown' in result ? 'OutcomeUnknown' : result.status;
    m.toolCalls.add(1, tags({ tool, status }));
    if (status === 'Failed') m.toolFailures.add(1, tags({ tool, kind: failure ?? 'error' }));
  });
}

/** A compaction's summary call succeeded (its tokens count with the model's calls). */
export function recordCompaction(model: string): void {
  safely(() => {
    const { m, tags } = recorder();
    m.compactions.add(1, tags({ model }));
  });
}
