/**
 * The PendingInput/PendingToolResults step of seed 004: one model call for the phase, and — when the
 * agent names `fallbackModels` — the next model of that list, in order, when a call fails in a way
 * another model may not. Each model is its own call (an activity in workflows), so each gets its own
 * retries and the history shows every attempt. The answer records the models that failed before it
 * (metadata `fallback_from`); its invocation descriptor names the one that answered. When the list is
 * exhausted the agent blocks on the error as before, and a retry starts again from the phase's model.
 * A call that blocks the agent also leaves a model_failure entry (what failed, when, after how many
 * attempts), so the failure stays in the record after a retry clears `lastError`.
 */
import { type AgentConfig, DEFAULT_COMPACT_AT } from './agent-config';
import type { CompactionEntry, ModelFailureEntry, ModelOutputEntry } from './entries';
import { HistoryValidationError, InfrastructureError } from './errors';
import { AgentRunState } from './run-state';
import {
  type AgentError,
  type CompactionNeeded,
  type CompactionResult,
  type ModelCallResult,
  type StepDeps,
  type StepOutcome,
  isCompactionNeeded,
} from './step-io';
import { ToolCatalog } from './tool-spec';
import { subAgentTools } from './sub-agents';
import { ATTACHMENT_REFUSED, REFUSED_ATTACHMENTS_CHANGE, type RefusedAttachment } from './refused-attachments';

/** The run states that call a model. */
export type ModelPhase = typeof AgentRunState.PendingInput | typeof AgentRunState.PendingToolResults;

export interface ModelStepHost {
  config: AgentConfig;
  /** The history bound of the call: the agent's last entry (read at each call: a compaction adds one). */
  readonly uptoSeq: number;
  clock(): number;
  /** Records the answer (repaired as it enters) and returns its entry; throws if it cannot be recorded. */
  appendOutput(result: ModelCallResult): ModelOutputEntry;
  /** Records a compaction's summary through `throughSeq`; throws if it cannot be recorded. */
  appendCompaction?(result: CompactionResult, throughSeq: number): CompactionEntry;
  /** The error the agent stays blocked on; undefined clears it. */
  setError(error: AgentError | undefined): void;
  /** Records a model call that blocks the agent (see ModelFailureEntry); throws if it cannot be recorded. */
  appendFailure?(failure: Omit<ModelFailureEntry, 'seq' | 'timestamp' | 'kind'>): ModelFailureEntry;
  /** The digest of the MCP tool catalog the agent holds, if any. */
  catalogDigest?: string;
  /** Records a changed MCP tool catalog a model call discovered. */
  setCatalog?(catalog: ToolCatalog): void;
  /** Attachments a provider refused, left out of the call. */
  refusedAttachments?(): RefusedAttachment[];
  /** Blames a provider's refusal on attachments (see suspectAttachments); the number newly left out. */
  refuseAttachments?(reason: string): number;
}

/**
 * Failures no other model would fix, because the request itself is at fault: the agent's own input or
 * parameters (400, 422), or an answer over the worker's payload limit (a worker setting, and the same
 * request gives any model the same room). Everything else falls back: an outage after its retries (5xx,
 * 429, 529, timeouts, cut streams, stalls), a provider or model this worker cannot call (missing key,
 * 401, 403, 404, no such provider), an unknown status (402 billing and the like), and a context too
 * long — the next model's context is rendered and trimmed for that model's own window, so it is a
 * different request. Codes are the framework's ModelError types (activities/models/provider-errors.ts).
 */
export const NO_FALLBACK_CODES: readonly string[] = ['ModelError.BadRequest', 'ModelError.Unprocessable', 'ModelError.OutputTooLarge'];

/** The workflow patch (StepDeps.since) behind fallbacks: histories recorded before it replay as they ran. */
export const FALLBACK_MODELS_CHANGE = 'fallback-models';

/** One model that failed before another answered, as recorded in `fallback_from`. */
export interface FailedModel {
  model: string;
  code: string;
}

/** Model names and codes are clipped in metadata so the entry's metadata stays within its 2 KB. */
const CLIP = 64;

/** Compactions one model step may make before it calls the model as the context is (never trimmed). */
export const MAX_COMPACTIONS_PER_STEP = 2;

export async function runModelStep(host: ModelStepHost, phase: ModelPhase, deps: StepDeps): Promise<StepOutcome> {
  const chain = modelChain(host.config, phase);
  const failed: FailedModel[] = [];
  const policy = host.config.context;
  const compactAt = policy?.policy === 'trim' ? undefined : (policy?.compactAt ?? DEFAULT_COMPACT_AT);
  let compactions = 0;
  for (let i = 0; ; i++) {
    const model = chain[i];
    try {
      const raw = await deps.callModel({
        uptoSeq: host.uptoSeq,
        model,
        ...(host.config.params ? { params: host.config.params } : {}),
        ...(host.config.tools ? { tools: host.config.tools } : {}),
        ...(host.config.contextWindow ? { contextWindow: host.config.contextWindow } : {}),
        ...(host.catalogDigest ? { catalogDigest: host.catalogDigest } : {}),
        ...(host.config.subAgents && Object.keys(host.config.subAgents).length ? { subAgentTools: subAgentTools(host.config) } : {}),
        ...(host.refusedAttachments?.().length ? { refusedAttachments: host.refusedAttachments() } : {}),
        ...(compactAt !== undefined ? { compactAt } : {}),
        ...(compactions >= MAX_COMPACTIONS_PER_STEP ? { compactionsDone: true } : {}),
        ...(policy?.cacheTtl ? { cacheTtl: policy.cacheTtl } : {}),
        phase,
      });
      if (isCompactionNeeded(raw)) {
        // The context passed its threshold: summarise the oldest turns, then ask the same model again.
        const blocked = await compactHistory(host, raw, model, phase, deps);
        if (blocked) return blocked;
        compactions++;
        i--;
        continue;
      }
      const catalog = raw.toolCatalog ? ToolCatalog.safeParse(raw.toolCatalog) : undefined;
      if (catalog?.success) host.setCatalog?.(catalog.data);
      const entry = host.appendOutput(failed.length ? withFallbackFrom(raw, failed) : raw);
      host.setError(undefined);
      deps.log?.('History', `appended model_output #${entry.seq} with ${entry.toolCalls.length} tool call(s)`);
      return 'ProgressMade';
    } catch (err) {
      if (err instanceof InfrastructureError) throw err; // not the model's failure: nothing to record
      const error = toAgentError(err, phase, host.clock);
      // The provider refused an attachment for good: it is left out (with a note the model reads) and the
      // same model is asked again at once, so one bad image never blocks the agent. The patch is asked
      // only then.
      if (error.code === ATTACHMENT_REFUSED && host.refuseAttachments && (deps.since?.(REFUSED_ATTACHMENTS_CHANGE) ?? true)) {
        const left = host.refuseAttachments(error.message);
        if (left > 0) {
          deps.log?.('Provider', `${model} refused ${left} attachment(s); asking again without them: ${error.message}`);
          i--;
          continue;
        }
      }
      failed.push({ model, code: error.code });
      const next = chain[i + 1];
      // The patch is asked last, so its marker is written only into histories where a fallback happens.
      if (next !== undefined && !NO_FALLBACK_CODES.includes(error.code) && (deps.since?.(FALLBACK_MODELS_CHANGE) ?? true)) {
        deps.log?.('Provider', `model call to ${model} failed (${error.code}); falling back to ${next}`);
        continue;
      }
      const own = error.message;
      if (failed.length > 1) error.message = `${error.message} [${describeTried(failed)}]`;
      host.setError(error);
      deps.log?.('Provider', `model call failed: ${error.message}`);
      recordFailure(host, deps, { code: error.code, message: own, model, call: 'model', ...attemptsOf(err), ...fallbacks(failed) });
      return 'BlockedOnError';
    }
  }
}

/** The workflow patch (StepDeps.since) behind compaction, asked only when a model call asks for one. */
export const COMPACTION_CHANGE = 'context-compaction';

/**
 * One compaction: the summary call (the compaction model, default the agent's), its entry recorded
 * once. A failed summary call blocks the agent on its error, as a failed model call does (a retry runs
 * the model step, and so the compaction, again); the context is never trimmed instead.
 */
async function compactHistory(
  host: ModelStepHost,
  needed: CompactionNeeded,
  askedBy: string,
  phase: ModelPhase,
  deps: StepDeps,
): Promise<StepOutcome | undefined> {
  const model = host.config.context?.compactionModel ?? host.config.model;
  try {
    if (!(deps.since?.(COMPACTION_CHANGE) ?? true) || !deps.compact || !host.appendCompaction) {
      throw Object.assign(new Error('This agent cannot compact its context here.'), { code: 'COMPACTION_UNAVAILABLE' });
    }
    deps.log?.('History', `context at ~${needed.estimatedInputTokens} of ${needed.inputBudget} tokens: compacting through #${needed.compactThrough}`);
    const result = await deps.compact({
      uptoSeq: host.uptoSeq,
      throughSeq: needed.compactThrough,
      model,
      inputBudget: needed.inputBudget,
      askedBy,
      ...(host.config.contextWindow ? { contextWindow: host.config.contextWindow } : {}),
    });
    const entry = host.appendCompaction(result, needed.compactThrough);
    deps.log?.('History', `appended compaction #${entry.seq} through #${entry.throughSeq}`);
    return undefined;
  } catch (err) {
    if (err instanceof InfrastructureError) throw err; // not the summary call's failure: nothing to record
    const error = toAgentError(err, phase, host.clock);
    const own = error.message;
    error.message = `Compacting the context with ${model} failed: ${error.message}`;
    host.setError(error);
    deps.log?.('Provider', error.message);
    if ((err as { code?: unknown })?.code !== 'COMPACTION_UNAVAILABLE')
      recordFailure(host, deps, { code: error.code, message: own, model, call: 'compaction', ...attemptsOf(err) });
    return 'BlockedOnError';
  }
}

/** The workflow patch (StepDeps.since) behind model_failure entries, asked only when a model call blocks the agent. */
export const MODEL_FAILURE_ENTRY_CHANGE = 'model-failure-entry';

/** Records a blocking failure in history: histories recorded before the patch replay without the entry. */
function recordFailure(host: ModelStepHost, deps: StepDeps, failure: Omit<ModelFailureEntry, 'seq' | 'timestamp' | 'kind'>): void {
  if (!host.appendFailure || !(deps.since?.(MODEL_FAILURE_ENTRY_CHANGE) ?? true)) return;
  try {
    const entry = host.appendFailure({ ...failure, code: failure.code || 'MODEL_CALL_FAILED' });
    deps.log?.('History', `appended model_failure #${entry.seq} (${entry.code})`);
  } catch (err) {
    // The record must never cost the agent its block (a workflow task that fails for good): lastError still says it all.
    if (!(err instanceof HistoryValidationError)) throw err;
    deps.log?.('History', `the model failure could not be recorded: ${err.message}`);
  }
}

/** The attempts a failed call took, when the workflow side knew them (see workflows/agent-run/failures.ts). */
function attemptsOf(err: unknown): { attempts?: number } {
  const attempts = (err as { attempts?: unknown } | null)?.attempts;
  return typeof attempts === 'number' && Number.isInteger(attempts) && attempts > 0 ? { attempts } : {};
}

/** The models that failed before the last one of the step, when there were any. */
function fallbacks(failed: readonly FailedModel[]): { fallbackFrom?: FailedModel[] } {
  return failed.length > 1 ? { fallbackFrom: failed.slice(0, -1).map((f) => ({ model: f.model, code: f.code })) } : {};
}

/** The phase's model (`executorModel` after tool results, when set), then the fallbacks, each once. */
export function modelChain(config: AgentConfig, phase: AgentRunState): string[] {
  const first = phase === AgentRunState.PendingToolResults && config.executorModel ? config.executorModel : config.model;
  return [...new Set([first, ...(config.fallbackModels ?? [])])];
}

function withFallbackFrom(raw: ModelCallResult, failed: readonly FailedModel[]): ModelCallResult {
  const fallbackFrom = failed.map((f) => ({ model: f.model.slice(0, CLIP), code: f.code.slice(0, CLIP) }));
  return { ...raw, metadata: { ...raw.metadata, fallback_from: fallbackFrom } };
}

/** Which models were tried, for the error the agent blocks on when the last one failed too. */
function describeTried(failed: readonly FailedModel[]): string {
  const before = failed.slice(0, -1).map((f) => `${f.model} (${f.code})`);
  return `${failed[failed.length - 1].model}; tried before it: ${before.join(', ')}`;
}

function toAgentError(err: unknown, runState: AgentRunState, clock: () => number): AgentError {
  const code = typeof (err as { code?: unknown })?.code === 'string' ? (err as { code: string }).code : 'MODEL_CALL_FAILED';
  return { code, message: errorMessage(err), runState, at: new Date(clock()).toISOString() };
}

export function errorMessage(err: unknown): string {
  if (err instanceof Error) {
    const cause = (err as { cause?: unknown }).cause;
    return cause instanceof Error && cause.message && cause.message !== err.message ? `${err.message}: ${cause.message}` : err.message;
  }
  return String(err);
}
