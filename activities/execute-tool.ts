/**
 * The executeTool activity. Every failure the model can fix — a tool it may not use, arguments that do
 * not parse or validate (after lenient repair), a thrown error, a timeout — comes back as a Failed result
 * saying what to fix; only infrastructure failures (this worker dying) are activity failures, retried by
 * Temporal, and so is a tool this worker lacks, for a while (see missing-tool.ts). A call whose tool
 * wants approval returns ApprovalRequired instead of running. Known secrets are cut out of every result.
 * A result reached on a later attempt says so (`attempts`, seed 004's retry count). A tool's passing
 * faults are retried here, under its retry policy (tools/tool-retry.ts): every attempt's error is kept in
 * the heartbeat details while the call runs and in the result's metadata (`attempt_errors`) after. A later
 * activity attempt after one that started and never reported (a worker died, a timeout) asks the tool's
 * `reconcile`, runs an idempotent tool again, or answers OutcomeUnknown for the agent to wait on
 * (tools/unknown-outcome.ts): never a silent second run.
 */
import { mkdir } from 'node:fs/promises';
import path from 'node:path';
import { Context } from '@temporalio/activity';
import {
  type ApprovalRequired,
  type JsonValue,
  METADATA_MAX_BYTES,
  type OutcomeUnknown,
  type ToolCallResult,
  parseToolArguments,
  toolAllowed,
} from '../agent/index';
import { DEFAULT_TOOL_TIMEOUT_MS, MAX_TOOL_TIMEOUT_MS, type ToolContext, type ToolOutput } from './tools/define-tool';
import {
  type ToolRetryableError,
  ToolTimeoutError,
  attemptErrorKind,
  attemptsUsed,
  clipError,
  describeAttempts,
  detailsWithLedger,
  isRetryable,
  resolvedPolicy,
  resumeLedger,
  retryDelayMs,
  withAttemptErrors,
} from './tools/tool-retry';
import {
  type ReconcileAnswer,
  beforeBodyMarker,
  checkReconcileAnswer,
  previousOutcomeUnknown,
  unknownOutcomeReason,
  unknownOutcomeStep,
} from './tools/unknown-outcome';
import { type AttemptInfo, missingToolMessage, passOn, shouldPassOn } from './tools/missing-tool';
import { redactJson, redactSecrets, secretsIn } from './tools/redact-secrets';
import type { ToolRegistry } from './tools/registry';
import { safeFolderName } from './tools/workspace-folder';
import { elicitThroughAgent } from './tools/elicit-through-agent';
import type { ExecuteToolInput } from './types';
import { inToolSpan } from './telemetry/tool-span';
import { type ToolFailureKind, recordToolRun } from './telemetry/activity-metrics';

export { safeFolderName };

/** Tool output the model sees is capped; the rest is cut with a marker stating the full size. */
export const TOOL_OUTPUT_MAX_CHARS = 64 * 1024;
const HEARTBEAT_EVERY_MS = 1000;
/** A retry starts only if its wait and its whole timeout end this long before the activity's own timeout. */
const ACTIVITY_MARGIN_MS = 60_000;

export interface ExecuteToolDeps {
  tools: ToolRegistry;
  /** Parent of all agent workspaces; each agent works in `<root>/<safeFolderName(agentId)>`. */
  workspaceRoot: string;
}

export function createExecuteTool(deps: ExecuteToolDeps) {
  return async function executeTool(input: ExecuteToolInput): Promise<ToolCallResult | ApprovalRequired | OutcomeUnknown> {
    const failure: { kind?: ToolFailureKind } = {};
    const result = await inToolSpan(input.call, input.agentId, () => runTool(input, failure));
    recordToolRun(input.call.toolName, result, failure.kind);
    return result;
  };
  /** `failure.kind` says why, when the result is a failure (for the tool-failure metric). */
  async function runTool(input: ExecuteToolInput, failure: { kind?: ToolFailureKind }): Promise<ToolCallResult | ApprovalRequired | OutcomeUnknown> {
    const { call } = input;
    const started = Date.now();
    const failed = (kind: ToolFailureKind, result: string, toolMetadata?: ToolCallResult['metadata'], attempts?: number) => {
      failure.kind = kind;
      return done('Failed', result, toolMetadata, attempts);
    };
    /** `attempts`: runs of the tool's body, when it ran; else Temporal's attempt number. */
    const done = (status: ToolCallResult['status'], result: string, toolMetadata?: ToolCallResult['metadata'], attempts?: number) => {
      const secrets = secretsIn();
      const text = capOutput(redactSecrets(result, secrets));
      const r: ToolCallResult = { toolCallId: call.toolCallId, toolName: call.toolName, status, result: text, elapsedMs: Date.now() - started };
      const metadata = withAttempts(toolMetadata, attempts ?? Context.current().info.attempt);
      if (metadata && Object.keys(metadata).length) r.metadata = redactJson(metadata, secrets);
      return r;
    };

    const ctx = Context.current();
    const tool = deps.tools.get(call.toolName);
    const allowed = toolAllowed(input.allowedTools, call.toolName);
    const available = () => deps.tools.allowedNames(input.allowedTools);
    if (!allowed) return failed('unknown_tool', `Unknown tool "${call.toolName}". Available tools: ${available().join(', ') || '(none)'}.`);
    if (!tool) {
      const { info } = ctx;
      const attempt: AttemptInfo = { attempt: info.attempt, maximumAttempts: info.retryPolicy?.maximumAttempts, firstScheduledMs: info.scheduledTimestampMs };
      // A name the model made up: no worker is expected to have it.
      if (input.offered === false) return failed('unknown_tool', `Unknown tool "${call.toolName}". Available tools: ${available().join(', ') || '(none)'}.`);
      if (shouldPassOn(attempt)) {
        // Says this attempt stopped before the body, so the next is not taken for one whose outcome is unknown.
        ctx.heartbeat(beforeBodyMarker(info.attempt));
        throw passOn(call.toolName, attempt);
      }
      return failed('missing_tool', missingToolMessage(call.toolName, available(), attempt));
    }
    const args = parseToolArguments(tool.parameters, call);
    if (!args.ok) return failed('bad_arguments', args.message);
    const repaired = args.repairs.length ? { arguments_repaired: args.repairs.join('; ').slice(0, 500) } : undefined;

    if (!input.approved && tool.needsApproval) {
      const verdict = typeof tool.needsApproval === 'function' ? tool.needsApproval(args.data) : true;
      if (verdict) return { approvalRequired: true, reason: typeof verdict === 'string' ? verdict : `${tool.name} needs approval` };
    }

    const workspaceRoot = path.join(deps.workspaceRoot, safeFolderName(input.agentId));
    await mkdir(workspaceRoot, { recursive: true });
    const timeoutMs = Math.min(tool.timeoutMs ?? DEFAULT_TOOL_TIMEOUT_MS, MAX_TOOL_TIMEOUT_MS);
    const policy = resolvedPolicy(tool.retry);
    // The attempts so far ride in the heartbeat details, so a call whose worker died mid-retry goes on
    // counting (and keeps the earlier errors) on the next worker.
    const ledger = resumeLedger(ctx.info.heartbeatDetails, ctx.info.attempt, new Date());
    const deadline = ctx.info.currentAttemptScheduledTimestampMs + ctx.info.startToCloseTimeoutMs - ACTIVITY_MARGIN_MS;
    // Heartbeat while the tool runs (and while it waits to retry) so a dead worker is noticed within the
    // heartbeat timeout; the tool's last progress details are repeated, since a heartbeat without details
    // would erase them for readers. The ledger joins them once there is more than one attempt to tell of.
    let progress: unknown;
    const details = () =>
      ledger.started > 1 || ledger.errors.length ? detailsWithLedger(progress, ledger, { tool_call_id: call.toolCallId, tool: call.toolName }) : progress;
    const beat = setInterval(() => ctx.heartbeat(details()), HEARTBEAT_EVERY_MS);
    const retried = () => ledger.started > 1;
    const metadataOf = (base: Record<string, JsonValue> | undefined) =>
      (retried() ? withAttemptErrors(base ?? {}, ledger.errors, METADATA_MAX_BYTES - 64) : base) as ToolCallResult['metadata'];
    const attempts = () => Math.max(ctx.info.attempt, ledger.started);
    const toolCtx = (signal: AbortSignal): ToolContext => ({
      agentId: input.agentId,
      toolCallId: call.toolCallId,
      idempotencyKey: input.idempotencyKey,
      workspaceRoot,
      signal,
      ...(ctx.info.heartbeatDetails !== undefined ? { previousDetails: ctx.info.heartbeatDetails } : {}),
      elicit: elicitThroughAgent({
        client: () => ctx.client,
        agentId: input.agentId,
        toolCallId: call.toolCallId,
        waiting: () => ctx.heartbeat(details()),
      }),
      heartbeat: (d) => {
        progress = redactJson(d); // details reach the server too
        ctx.heartbeat(details());
      },
    });
    let afterUnknown: Record<string, JsonValue> | undefined;
    try {
      const { attempt, heartbeatDetails } = ctx.info;
      if (previousOutcomeUnknown(attempt, heartbeatDetails)) {
        // An earlier attempt may have had its effect: never a silent second run (see tools/unknown-outcome.ts).
        const unknown = (reason: string) =>
          input.unknownOutcomes
            ? ({ outcomeUnknown: true, reason } as const)
            : failed('outcome_unknown', `The outcome of ${call.toolName} is unknown: ${reason}. Check whether it happened before calling it again.`, repaired);
        const next = unknownOutcomeStep(tool);
        if (next.step === 'wait') return unknown(unknownOutcomeReason(call.toolName, attempt));
        if (next.step === 'reconcile') {
          const why = unknownOutcomeReason(call.toolName, attempt).split(';')[0];
          const asked = await runAttempt(timeoutMs, (signal) => tool.reconcile!(args.data, toolCtx(signal)));
          if (ctx.cancellationSignal.aborted && !asked.ok) throw asked.error;
          if (!asked.ok) {
            const err = asked.error;
            return unknown(
              err instanceof ToolTimeoutError ? `${why}; its reconcile timed out` : `${why}; its reconcile failed: ${(err as Error)?.message ?? String(err)}`,
            );
          }
          let answer: ReconcileAnswer;
          try {
            answer = checkReconcileAnswer(asked.output);
          } catch (err) {
            return unknown(`${why}; its reconcile failed: ${(err as Error)?.message ?? String(err)}`);
          }
          if ('done' in answer) {
            const out = answer.done;
            const text = typeof out === 'string' ? out : out.text;
            return done('Success', text, { ...repaired, ...(typeof out === 'string' ? {} : out.metadata), reconciled: true });
          }
          afterUnknown = { reconciled: 'not_done' };
        } else afterUnknown = { rerun_after_unknown: true };
      }
      // A worker that died after its last allowed attempt failed, before it reported: no further run.
      if (attemptsUsed(ledger) >= policy.maxAttempts) {
        const text = `${call.toolName} failed: its ${policy.maxAttempts} attempts were used before this worker took the call over. Every attempt:\n${describeAttempts(ledger.errors)}`;
        return failed('error', text, metadataOf({ ...repaired, ...afterUnknown }), attempts());
      }
      for (;;) {
        ledger.started += 1;
        progress = undefined;
        ctx.heartbeat(details()); // the start of this attempt, before its body runs
        let outcome = await runAttempt(timeoutMs, (signal) => tool.execute(args.data, toolCtx(signal)));
        if (outcome.ok) {
          try {
            const output = outcome.output;
            const text = typeof output === 'string' ? output : (output as Exclude<ToolOutput, string>).text;
            const metadata = typeof output === 'string' ? undefined : output.metadata;
            return done('Success', text, metadataOf({ ...repaired, ...afterUnknown, ...metadata }), attempts());
          } catch (error) {
            outcome = { ok: false, error }; // an output that is not text (say, undefined): a failed attempt, never a failed activity
          }
        }
        const err = outcome.error;
        if (ctx.cancellationSignal.aborted) throw err; // cancellation is Temporal's business, not a tool result
        const message = (err as Error)?.message ?? String(err);
        const kind = attemptErrorKind(err);
        ledger.errors.push({ attempt: ledger.started, error: clipError(redactSecrets(message)), kind, at: new Date().toISOString() });
        const delay = retryDelayMs(policy, attemptsUsed(ledger), (err as ToolRetryableError).retryAfterMs);
        const stop = !isRetryable(policy, err)
          ? 'it is not retryable'
          : attemptsUsed(ledger) >= policy.maxAttempts
            ? `the policy allows ${policy.maxAttempts} attempts`
            : Date.now() + delay + timeoutMs > deadline
              ? 'another attempt would not end before the activity times out'
              : undefined;
        if (stop) {
          const first = kind === 'timeout' ? `${message}. Try a smaller task or different arguments.` : `${call.toolName} failed: ${message}`;
          const text = retried() ? `${first}\nNot retried again: ${stop}. Every attempt:\n${describeAttempts(ledger.errors)}` : first;
          return failed(kind === 'timeout' ? 'timeout' : 'error', text, metadataOf({ ...repaired, ...afterUnknown }), attempts());
        }
        ctx.heartbeat(details());
        await ctx.sleep(delay); // throws when the call is cancelled (interrupt) while it waits
      }
    } finally {
      clearInterval(beat);
    }

    /** One run of the body within `ms`, with a signal aborted on cancellation or timeout. */
    async function runAttempt<T>(ms: number, run: (signal: AbortSignal) => Promise<T> | T): Promise<{ ok: true; output: T } | { ok: false; error: unknown }> {
      const abort = new AbortController();
      const onCancel = () => abort.abort();
      ctx.cancellationSignal.addEventListener('abort', onCancel);
      let timer: NodeJS.Timeout | undefined;
      try {
        const timedOut = new Promise<'timeout'>((resolve) => (timer = setTimeout(() => resolve('timeout'), ms)));
        const output = await Promise.race([Promise.resolve().then(() => run(abort.signal)), timedOut]);
        if (output !== 'timeout') return { ok: true, output };
        abort.abort(); // tell the tool to stop; its late result is ignored
        return { ok: false, error: new ToolTimeoutError(`${call.toolName} timed out after ${Math.round(ms / 1000)} s`) };
      } catch (error) {
        return { ok: false, error };
      } finally {
        clearTimeout(timer);
        ctx.cancellationSignal.removeEventListener('abort', onCancel);
      }
    }
  }
}

/**
 * Adds Temporal's attempt number when this is not the first: a worker died mid-run or the call was
 * handed on (missing-tool.ts). Absent means one attempt, as for nearly every call and for the tools that
 * run in the workflow (widgets, timers), so history grows only when there was a retry to tell of. A
 * tool's metadata that is not an object is left as it is, for the workflow to refuse with a note.
 */
export function withAttempts(metadata: ToolCallResult['metadata'], attempt: number): ToolCallResult['metadata'] {
  if (attempt <= 1) return metadata;
  if (metadata === undefined) return { attempts: attempt };
  return typeof metadata === 'object' && metadata !== null && !Array.isArray(metadata) ? { ...metadata, attempts: attempt } : metadata;
}

export function capOutput(text: string): string {
  if (text.length <= TOOL_OUTPUT_MAX_CHARS) return text;
  return `${text.slice(0, TOOL_OUTPUT_MAX_CHARS)}\n[output truncated: ${text.length} characters in all, ${TOOL_OUTPUT_MAX_CHARS} shown]`;
}
