/**
 * The executeTool activity. Every failure the model can fix — a tool it may not use, arguments that do
 * not parse or validate (after lenient repair), a thrown error, a timeout — comes back as a Failed result
 * saying what to fix; only infrastructure failures (this worker dying) are activity failures, retried by
 * Temporal, and so is a tool this worker lacks, for a while (see missing-tool.ts). A call whose tool
 * wants approval returns ApprovalRequired instead of running. Known secrets are cut out of every result.
 * A result reached on a later attempt says so (`attempts`, seed 004's retry count). A later attempt after
 * one that started and never reported asks the tool's `reconcile`, runs an idempotent tool again, or
 * answers OutcomeUnknown for the agent to wait on (tools/unknown-outcome.ts): never a silent second run.
 */
import { mkdir } from 'node:fs/promises';
import path from 'node:path';
import { Context } from '@temporalio/activity';
import { type ApprovalRequired, type JsonValue, type OutcomeUnknown, type ToolCallResult, parseToolArguments, toolAllowed } from '../agent/index';
import { DEFAULT_TOOL_TIMEOUT_MS, MAX_TOOL_TIMEOUT_MS, type ToolContext, type ToolOutput } from './tools/define-tool';
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
import type { ExecuteToolInput } from './types';
import { inToolSpan } from './telemetry/tool-span';
import { type ToolFailureKind, recordToolRun } from './telemetry/activity-metrics';

export { safeFolderName };

/** Tool output the model sees is capped; the rest is cut with a marker stating the full size. */
export const TOOL_OUTPUT_MAX_CHARS = 64 * 1024;
const HEARTBEAT_EVERY_MS = 1000;

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
    const failed = (kind: ToolFailureKind, result: string, toolMetadata?: ToolCallResult['metadata']) => {
      failure.kind = kind;
      return done('Failed', result, toolMetadata);
    };
    const done = (status: ToolCallResult['status'], result: string, toolMetadata?: ToolCallResult['metadata']) => {
      const secrets = secretsIn();
      const text = capOutput(redactSecrets(result, secrets));
      const r: ToolCallResult = { toolCallId: call.toolCallId, toolName: call.toolName, status, result: text, elapsedMs: Date.now() - started };
      const metadata = withAttempts(toolMetadata, Context.current().info.attempt);
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
    const abort = new AbortController();
    const onCancel = () => abort.abort();
    ctx.cancellationSignal.addEventListener('abort', onCancel);
    // Heartbeat while the tool runs so a dead worker is noticed within the heartbeat timeout; the tool's
    // last progress details are repeated, since a heartbeat without details would erase them for readers.
    let progress: unknown;
    const beat = setInterval(() => ctx.heartbeat(progress), HEARTBEAT_EVERY_MS);
    let timer: NodeJS.Timeout | undefined;
    const toolCtx: ToolContext = {
      agentId: input.agentId,
      toolCallId: call.toolCallId,
      idempotencyKey: input.idempotencyKey,
      workspaceRoot,
      signal: abort.signal,
      heartbeat: (details) => ctx.heartbeat((progress = redactJson(details))), // details reach the server too
    };
    const timedOut = new Promise<'timeout'>((resolve) => (timer = setTimeout(() => resolve('timeout'), timeoutMs)));
    const timeoutText = () => `${call.toolName} timed out after ${Math.round(timeoutMs / 1000)} s. Try a smaller task or different arguments.`;
    let afterUnknown: Record<string, JsonValue> | undefined;
    try {
      const { attempt, heartbeatDetails } = ctx.info;
      if (previousOutcomeUnknown(attempt, heartbeatDetails)) {
        // An earlier attempt may have had its effect: never a silent second run (see tools/unknown-outcome.ts).
        const next = unknownOutcomeStep(tool);
        if (next.step === 'wait') {
          const reason = unknownOutcomeReason(call.toolName, attempt);
          if (input.unknownOutcomes) return { outcomeUnknown: true, reason };
          return failed(
            'outcome_unknown',
            `The outcome of ${call.toolName} is unknown: ${reason}. Check whether it happened before calling it again.`,
            repaired,
          );
        }
        if (next.step === 'reconcile') {
          let answer: ReconcileAnswer | 'timeout';
          try {
            const asked = await Promise.race([Promise.resolve(tool.reconcile!(args.data, toolCtx)), timedOut]);
            answer = asked === 'timeout' ? asked : checkReconcileAnswer(asked);
          } catch (err) {
            if (ctx.cancellationSignal.aborted) throw err;
            const reason = `${unknownOutcomeReason(call.toolName, attempt).split(';')[0]}; its reconcile failed: ${(err as Error)?.message ?? String(err)}`;
            if (input.unknownOutcomes) return { outcomeUnknown: true, reason };
            return failed('outcome_unknown', `The outcome of ${call.toolName} is unknown: ${reason}.`, repaired);
          }
          if (answer === 'timeout') {
            abort.abort();
            const reason = `${unknownOutcomeReason(call.toolName, attempt).split(';')[0]}; its reconcile timed out`;
            if (input.unknownOutcomes) return { outcomeUnknown: true, reason };
            return failed('outcome_unknown', `The outcome of ${call.toolName} is unknown: ${reason}.`, repaired);
          }
          if ('done' in answer) {
            const out = answer.done;
            const text = typeof out === 'string' ? out : out.text;
            return done('Success', text, { ...repaired, ...(typeof out === 'string' ? {} : out.metadata), reconciled: true });
          }
          afterUnknown = { reconciled: 'not_done' };
        } else afterUnknown = { rerun_after_unknown: true };
      }
      const output = await Promise.race([Promise.resolve(tool.execute(args.data, toolCtx)), timedOut]);
      if (output === 'timeout') {
        abort.abort(); // tell the tool to stop; its late result is ignored
        return failed('timeout', timeoutText(), { ...repaired, ...afterUnknown });
      }
      const text = typeof output === 'string' ? output : (output as Exclude<ToolOutput, string>).text;
      const metadata = typeof output === 'string' ? undefined : output.metadata;
      return done('Success', text, { ...repaired, ...afterUnknown, ...metadata });
    } catch (err) {
      if (ctx.cancellationSignal.aborted) throw err; // cancellation is Temporal's business, not a tool result
      return failed('error', `${call.toolName} failed: ${(err as Error)?.message ?? String(err)}`, { ...repaired, ...afterUnknown });
    } finally {
      clearTimeout(timer);
      clearInterval(beat);
      ctx.cancellationSignal.removeEventListener('abort', onCancel);
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
