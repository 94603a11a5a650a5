/**
 * The compactContext activity: the summary call of a compaction (policy `compact`). It reads the
 * agent's entries as a model call does (the entry cache), sends the compaction model the previous
 * summary and the entries after it up to `throughSeq` as one transcript under a summarising instruction
 * (agent/compaction.ts), and returns the summary; the workflow records it once, as a compaction entry.
 * No tools are offered, and the agent's own model parameters are not used: a summary is a plain answer.
 */
import { Context } from '@temporalio/activity';
import { ApplicationFailure } from '@temporalio/common';
import { COMPACTION_INSTRUCTION, type CompactionResult, type ModelInputEntry, compactionSections } from '../agent/index';
import type { CallModelDeps } from './call-model';
import { DEFAULT_MODEL_LIVENESS } from './call-model';
import { type ContextSources, knownEntries } from './model-call/prepare-context';
import { type ModelStreamCall, streamMessage } from './model-call/stream-message';
import { otherActivityWorkers, resolveOrPassOn } from './models/missing-provider';
import { costOf } from './models/prices';
import { recordCompaction } from './telemetry/activity-metrics';
import type { CompactContextInput } from './types';

/** Words a summary is asked to stay under: a tenth of the agent's input budget (about 0.75 words a token), within bounds. */
function summaryWords(inputBudget: number | undefined): number {
  return Math.max(150, Math.min(3000, Math.floor(((inputBudget ?? 40_000) / 10) * 0.75)));
}

export function createCompactContext(deps: Pick<CallModelDeps, 'models' | 'liveness' | 'prices'> & ContextSources) {
  return async function compactContext(input: CompactContextInput): Promise<CompactionResult> {
    const ctx = Context.current();
    const preparing = setInterval(() => ctx.info.isLocal || ctx.heartbeat(), 1000); // a local activity cannot heartbeat
    // The entries as the model call that asked for the compaction read them (the previous summary included).
    const asked = { ...input, model: input.askedBy };
    const { known: entries } = await knownEntries(deps, ctx, asked).finally(() => clearInterval(preparing));
    const sections = compactionSections(entries, input.uptoSeq, input.throughSeq, summaryWords(input.inputBudget));
    const attempt = { attempt: ctx.info.attempt, maximumAttempts: ctx.info.retryPolicy?.maximumAttempts, firstScheduledMs: ctx.info.scheduledTimestampMs };
    const { activityNamespace: namespace, taskQueue } = ctx.info;
    const model = await resolveOrPassOn(deps.models, input.model, attempt, () => otherActivityWorkers(ctx.client, namespace, taskQueue));
    const prompt: ModelInputEntry = { kind: 'model_input', seq: input.uptoSeq, timestamp: new Date(0).toISOString(), sections };
    const call: ModelStreamCall = {
      ctx,
      input: { agentId: input.agentId, runId: input.runId, uptoSeq: input.uptoSeq, model: input.model, phase: 'PendingInput' },
      model,
      toolSpecs: [],
      system: COMPACTION_INSTRUCTION,
      wire: undefined,
      observe: undefined,
      liveness: deps.liveness ?? DEFAULT_MODEL_LIVENESS,
      // Partial summaries are no one's to read: heartbeats carry them, no stream endpoint.
      streamChannel: undefined,
      prices: deps.prices,
      usageRepairs: [],
    };
    const message = await streamMessage(call, [prompt]);
    const info = model.modelInfo();
    const summary = message.contents.join('').trim();
    // A summary without text would drop the conversation it stands for: an error (retried), never an entry.
    if (!summary) throw ApplicationFailure.create({ type: 'ModelError.EmptyOutput', message: `${input.model} returned no summary text.` });
    const result: CompactionResult = {
      summary,
      invocation: { providerId: info.providerId, specification: info.specification, model: info.modelId },
      metadata: { attempts: ctx.info.attempt, call_id: ctx.info.activityId, summarised_entries: entries.filter((e) => e.seq <= input.throughSeq).length },
    };
    if (message.usage) {
      const { totalTokens: _total, ...usage } = message.usage;
      const costUsd = costOf(deps.prices, input.model, usage);
      result.usage = costUsd === undefined ? usage : { ...usage, costUsd };
    }
    recordCompaction(input.model);
    return result;
  };
}
