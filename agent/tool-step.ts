/**
 * The WaitingToolResults step of seed 004, with what Temporal makes possible around it: tools that run
 * inside the workflow (widget tools, durable timers, ask_user, sub-agents — each a kind in
 * ./tool-kinds/), approval by a person, and (opt-in) all calls of a batch at once. Every outcome —
 * success, failure, denial — becomes a ToolCallResult in the pending results; nothing here throws.
 */
import type { AgentConfig } from './agent-config';
import type { ToolCallRequest, ToolCallResult } from './entries';
import type { ApprovalState } from './snapshot';
import type { StepDeps, StepOutcome } from './step-io';
import { approvalPolicy, toolAllowed } from './tool-allowance';
import { describeToolRule, matchToolRule } from './tool-rules';
import { type EffectRecord, UNKNOWN_OUTCOME_CHANGE, markUnknown } from './effect-ledger';
import { INTERRUPTED, TOOL_KINDS, type ToolOutcome, type ToolStepHost, callBase, isoNow } from './tool-kinds/index';

/**
 * The calls that run next: sequentially (seed 004, the default) the first call without a result, unless
 * it waits for a decision; in parallel, every call that does not wait for one. Empty: blocked on approval.
 */
export function runnableBatch(
  config: AgentConfig,
  waiting: readonly ToolCallRequest[],
  approvals: Readonly<Record<string, ApprovalState>>,
  effects: Readonly<Record<string, EffectRecord>> = {},
): ToolCallRequest[] {
  // A call whose outcome is unknown waits for its resolution as one waiting for approval does.
  const runnable = waiting.filter((c) => approvals[c.toolCallId]?.status !== 'pending' && !isUnresolvedUnknown(effects[c.toolCallId]));
  if (config.parallelTools) return runnable;
  return runnable.length > 0 && waiting[0] === runnable[0] ? [runnable[0]] : [];
}

export async function runToolStep(host: ToolStepHost, deps: StepDeps): Promise<StepOutcome> {
  const batch = runnableBatch(host.config, host.pendingCalls(), host.approvals, host.effects);
  if (batch.length === 0) return 'BlockedOnApproval';
  let progressed = false;
  await Promise.all(
    batch.map(async (call) => {
      let result = await runOne(host, call, deps);
      if (result === INTERRUPTED) {
        // The workflow needs the step to end (new run, stop, reset); the timer stays in `host.timers`.
        progressed = true;
        deps.log?.('Tools', `timer of ${call.toolName} (${call.toolCallId}) interrupted; it resumes in the next run`);
        return;
      }
      if ('approvalRequired' in result) {
        host.approvals[call.toolCallId] = { status: 'pending', reason: result.reason, requestedAt: isoNow(host) };
        deps.log?.('Tools', `tool ${call.toolName} (${call.toolCallId}) waits for approval: ${result.reason}`);
        return;
      }
      if ('outcomeUnknown' in result) {
        if (deps.since?.(UNKNOWN_OUTCOME_CHANGE) ?? true) {
          markUnknown(host.effects, call.toolCallId, result.reason, isoNow(host));
          deps.log?.('Tools', `tool ${call.toolName} (${call.toolCallId}) outcome unknown, waits for a resolution: ${result.reason}`);
          return;
        }
        result = { ...callBase(call), status: 'Failed', result: `The outcome of ${call.toolName} is unknown: ${result.reason}.` };
      }
      host.addResult(withDecision(result, host.approvals[call.toolCallId]));
      progressed = true;
      deps.log?.('Tools', `tool ${call.toolName} (${call.toolCallId}) -> ${result.status}`);
    }),
  );
  return progressed ? 'ProgressMade' : 'BlockedOnApproval';
}

/**
 * The result with who decided on its call, through which door and when (metadata `decision`) — for
 * decisions that name their door, which only clients since the one-wait change send, so results in
 * histories recorded before stay as they were.
 */
function withDecision(result: ToolCallResult, decision: ApprovalState | undefined): ToolCallResult {
  if (!decision || decision.status === 'pending' || decision.door === undefined) return result;
  const record = { approved: decision.status === 'approved', door: decision.door, at: decision.at, ...(decision.by !== undefined ? { by: decision.by } : {}) };
  return { ...result, metadata: { ...result.metadata, decision: record } };
}

function isUnresolvedUnknown(e: EffectRecord | undefined): boolean {
  return e?.outcome === 'unknown' && !e.resolution;
}

/** A person's decision and the agent's approval policy first, for every kind; then the first kind that takes the call runs it. */
async function runOne(host: ToolStepHost, call: ToolCallRequest, deps: StepDeps): Promise<ToolOutcome> {
  const decision = host.approvals[call.toolCallId];
  if (decision?.status === 'denied') {
    const by = decision.by ? ` by ${decision.by}` : '';
    return {
      ...callBase(call),
      status: 'Skipped',
      result: `The call was denied${by}${decision.reason ? `: ${decision.reason}` : ''}. Do not retry it unchanged.`,
    };
  }
  // The agent's rules first (tool-rules.ts): a deny holds even over a person's approval.
  const ruled = matchToolRule(host.config.toolRules, call);
  if (ruled?.rule.action === 'deny') {
    const why = ruled.rule.reason ? `: ${ruled.rule.reason}` : '';
    return {
      ...callBase(call),
      status: 'Skipped',
      result: `The agent's rule ${ruled.number} (${describeToolRule(ruled.rule)}) denies this call${why}. Do not retry it unchanged.`,
    };
  }
  if (ruled?.rule.action === 'ask' && decision?.status !== 'approved') {
    return { approvalRequired: true, reason: `the agent's rule ${ruled.number} (${describeToolRule(ruled.rule)}) asks a person first` };
  }
  const policy = ruled ? undefined : approvalPolicy(host.config.approval, call.toolName);
  const approved = decision?.status === 'approved' || policy === 'never' || ruled?.rule.action === 'allow';
  if (policy === 'always' && !approved) return { approvalRequired: true, reason: `the agent's policy requires approval for ${call.toolName}` };

  const at = { call, host, deps, approved };
  const allowed = toolAllowed(host.config.tools, call.toolName);
  for (const kind of TOOL_KINDS) {
    if (kind.allowedBy === 'allowance' && !allowed) continue;
    const match = kind.recognise(at);
    if (match === undefined) continue;
    // A history recorded before the kind came ran the call as a later kind: it replays so.
    const change = kind.change?.(match);
    if (change && deps.since && !deps.since(change)) continue;
    return kind.run(at, match);
  }
  throw new Error(`no tool kind took ${call.toolName}`); // unreachable: the activity kind takes every call
}
