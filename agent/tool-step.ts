/**
 * The WaitingToolResults step of seed 004, with what Temporal makes possible around it: tools that run
 * inside the workflow (widget tools, durable timers), approval by a person, and (opt-in) all calls of
 * a batch at once. Every outcome — success, failure, denial — becomes a ToolCallResult in the pending
 * results; nothing here throws.
 */
import type { AgentConfig } from './agent-config';
import { checkMetadata } from './agent-state';
import type { ToolCallRequest, ToolCallResult } from './entries';
import { parseToolArguments } from './lenient-args';
import type { ApprovalState, TimerState } from './snapshot';
import type { ApprovalRequired, StepDeps, StepOutcome } from './step-io';
import { InfrastructureError } from './errors';
import { MAX_SLEEP_SECONDS, SleepArgs, WaitUntilArgs, isTimerTool } from './timer-tools';
import { ASK_USER_CHANGE, ASK_USER_TOOL, AskUserArgs } from './ask-user';
import {
  MAX_RUNNING_SUB_AGENTS,
  MAX_SUB_AGENT_DEPTH,
  SUB_AGENT_FAILURES_CHANGE,
  SUB_AGENTS_CHANGE,
  type SubAgentCall,
  SubAgentArgs,
  childConfig,
  subAgentProfile,
} from './sub-agents';
import { approvalPolicy, toolAllowed } from './tool-allowance';
import { WIDGET_KINDS, type Widget } from './widgets/index';

export interface ToolStepHost {
  config: AgentConfig;
  widgets: readonly Widget[];
  approvals: Record<string, ApprovalState>;
  /** Running sleep/wait_until timers by toolCallId: carried across runs, so a wait resumes, not restarts. */
  timers: Record<string, TimerState>;
  /** Sub-agent calls in flight or answered, by toolCallId: carried across runs, like timers. */
  subAgentCalls: Record<string, SubAgentCall>;
  /** The sequence number of the model output whose calls these are. */
  batchSeq: number;
  clock(): number;
  /** Calls of the last output without a result yet, in call order. */
  pendingCalls(): ToolCallRequest[];
  /** Whether the model was offered this tool when it called it (false for a made-up name). */
  offered(toolName: string): boolean;
  addResult(result: ToolCallResult): void;
}

/**
 * The calls that run next: sequentially (seed 004, the default) the first call without a result, unless
 * it waits for a decision; in parallel, every call that does not wait for one. Empty: blocked on approval.
 */
export function runnableBatch(config: AgentConfig, waiting: readonly ToolCallRequest[], approvals: Readonly<Record<string, ApprovalState>>): ToolCallRequest[] {
  const runnable = waiting.filter((c) => approvals[c.toolCallId]?.status !== 'pending');
  if (config.parallelTools) return runnable;
  return runnable.length > 0 && waiting[0] === runnable[0] ? [runnable[0]] : [];
}

export async function runToolStep(host: ToolStepHost, deps: StepDeps): Promise<StepOutcome> {
  const batch = runnableBatch(host.config, host.pendingCalls(), host.approvals);
  if (batch.length === 0) return 'BlockedOnApproval';
  let progressed = false;
  await Promise.all(
    batch.map(async (call) => {
      const result = await runOne(host, call, deps);
      if (result === INTERRUPTED) {
        // The workflow needs the step to end (new run, stop, reset); the timer stays in `host.timers`.
        progressed = true;
        deps.log?.('Tools', `timer of ${call.toolName} (${call.toolCallId}) interrupted; it resumes in the next run`);
        return;
      }
      if ('approvalRequired' in result) {
        host.approvals[call.toolCallId] = { status: 'pending', reason: result.reason, requestedAt: iso(host) };
        deps.log?.('Tools', `tool ${call.toolName} (${call.toolCallId}) waits for approval: ${result.reason}`);
        return;
      }
      host.addResult(result);
      progressed = true;
      deps.log?.('Tools', `tool ${call.toolName} (${call.toolCallId}) -> ${result.status}`);
    }),
  );
  return progressed ? 'ProgressMade' : 'BlockedOnApproval';
}

const INTERRUPTED = Symbol('interrupted');

async function runOne(host: ToolStepHost, call: ToolCallRequest, deps: StepDeps): Promise<ToolCallResult | ApprovalRequired | typeof INTERRUPTED> {
  const base = { toolCallId: call.toolCallId, toolName: call.toolName };
  const decision = host.approvals[call.toolCallId];
  if (decision?.status === 'denied') {
    const by = decision.by ? ` by ${decision.by}` : '';
    return { ...base, status: 'Skipped', result: `The call was denied${by}${decision.reason ? `: ${decision.reason}` : ''}. Do not retry it unchanged.` };
  }
  const policy = approvalPolicy(host.config.approval, call.toolName);
  const approved = decision?.status === 'approved' || policy === 'never';
  if (policy === 'always' && !approved) return { approvalRequired: true, reason: `the agent's policy requires approval for ${call.toolName}` };

  // A sub-agent named in the agent's own configuration is allowed by it, whatever the tool list says.
  const delegation = subAgentProfile(host.config, call.toolName);
  if (delegation && (!deps.since || deps.since(SUB_AGENTS_CHANGE))) return runSubAgent(host, call, delegation, deps);
  const allowed = toolAllowed(host.config.tools, call.toolName);
  const widget = allowed ? host.widgets.find((w) => w.tools.some((t) => t.name === call.toolName)) : undefined;
  if (widget && widgetInForce(widget, deps)) {
    // Widget tools change agent state, so they run here, in the workflow, deterministically.
    const tool = widget.tools.find((t) => t.name === call.toolName)!;
    const args = parseToolArguments(tool.parameters, call);
    if (!args.ok) return { ...base, status: 'Failed', result: args.message, elapsedMs: 0 };
    const out = widget.executeTool(call.toolName, args.data);
    deps.log?.('Widgets', `${widget.name}.${call.toolName} -> ${out.status}`, out.metadata);
    return withMetadata({ ...base, status: out.status, result: out.result, elapsedMs: 0 }, out.metadata);
  }
  if (allowed && isTimerTool(call.toolName) && deps.sleep) return runTimer(host, call, deps.sleep);
  if (allowed && call.toolName === ASK_USER_TOOL.name && (!deps.since || deps.since(ASK_USER_CHANGE))) {
    // Nothing runs: the question ends the turn once the batch's results are in (see Agent).
    const args = parseToolArguments(AskUserArgs, call);
    if (!args.ok) return { ...base, status: 'Failed', result: args.message, elapsedMs: 0 };
    return {
      ...base,
      status: 'Success',
      result: 'The question was shown to the user; their reply comes as the next input.',
      elapsedMs: 0,
      metadata: { asked_user: true },
    };
  }
  try {
    const offered = host.offered(call.toolName);
    const options = { ...(approved ? { approved: true } : {}), ...(offered ? {} : { offered: false }) };
    const result = await deps.executeTool(call, Object.keys(options).length ? options : undefined);
    if ('approvalRequired' in result) return result;
    // The result must answer this call whatever the executor returned, and keep metadata within limits.
    return withMetadata({ ...result, ...base }, result.metadata);
  } catch (err) {
    if (err instanceof InfrastructureError) throw err; // not the tool's failure: nothing to record
    return { ...base, status: 'Failed', result: `Tool ${call.toolName} could not be executed: ${(err as Error)?.message ?? String(err)}` };
  }
}

async function runSubAgent(
  host: ToolStepHost,
  call: ToolCallRequest,
  { name, profile }: NonNullable<ReturnType<typeof subAgentProfile>>,
  deps: StepDeps,
): Promise<ToolCallResult | typeof INTERRUPTED> {
  const base = { toolCallId: call.toolCallId, toolName: call.toolName };
  const fail = (result: string): ToolCallResult => ({ ...base, status: 'Failed', result, elapsedMs: 0 });
  let pending = host.subAgentCalls[call.toolCallId];
  if (!pending) {
    if (!deps.delegate) return fail('Sub-agents cannot run here.');
    const args = parseToolArguments(SubAgentArgs, call);
    if (!args.ok) return fail(args.message);
    const depth = (host.config.delegatedBy?.depth ?? 0) + 1;
    if (depth > MAX_SUB_AGENT_DEPTH) return fail(`Sub-agents may be at most ${MAX_SUB_AGENT_DEPTH} deep; do this task yourself.`);
    const running = Object.values(host.subAgentCalls).filter((c) => !c.result).length;
    if (running >= MAX_RUNNING_SUB_AGENTS) return fail(`At most ${MAX_RUNNING_SUB_AGENTS} sub-agents run at once; ask again once some have answered.`);
    const index = host.pendingCalls().findIndex((c) => c.toolCallId === call.toolCallId);
    pending = { agentId: '', profile: name, startedAt: iso(host) };
    host.subAgentCalls[call.toolCallId] = pending; // before the start: a parallel call counts it
    // The parent's id is the workflow's to know: it picks the child's id.
    try {
      pending.agentId = await deps.delegate.start({
        toolCallId: call.toolCallId,
        profile: name,
        index: Math.max(index, 0),
        batchSeq: host.batchSeq,
        config: childConfig(host.config, '', call.toolCallId, profile),
        ...(profile.systemInstruction ? { systemInstruction: profile.systemInstruction } : {}),
        task: args.data.task,
      });
    } catch (err) {
      // Whatever kept the child from starting (its id taken, the namespace refusing it…) is the call's
      // failure, for the model to see: nothing will ever answer a child that does not run. A history
      // recorded before the change (which failed the workflow task instead) replays as it ran.
      if (err instanceof InfrastructureError || (deps.since && !deps.since(SUB_AGENT_FAILURES_CHANGE))) throw err;
      delete host.subAgentCalls[call.toolCallId];
      deps.log?.('Tools', `sub-agent for ${call.toolCallId} could not start: ${(err as Error)?.message ?? String(err)}`);
      return fail(`The ${name} sub-agent could not be started: ${(err as Error)?.message ?? String(err)}`);
    }
    deps.log?.('Tools', `delegated ${call.toolCallId} to sub-agent ${pending.agentId}`);
  }
  if (!pending.result && !(await deps.delegate!.wait(call.toolCallId))) return INTERRUPTED;
  const result = host.subAgentCalls[call.toolCallId].result!;
  const elapsedMs = Math.max(0, host.clock() - Date.parse(pending.startedAt));
  return { ...base, status: result.status, result: result.text, elapsedMs, metadata: { sub_agent: pending.agentId.slice(0, 300) } };
}

async function runTimer(host: ToolStepHost, call: ToolCallRequest, sleep: NonNullable<StepDeps['sleep']>): Promise<ToolCallResult | typeof INTERRUPTED> {
  const base = { toolCallId: call.toolCallId, toolName: call.toolName };
  let timer = host.timers[call.toolCallId];
  if (!timer) {
    const startedAt = host.clock();
    let wakeAt: number;
    if (call.toolName === 'sleep') {
      const args = parseToolArguments(SleepArgs, call);
      if (!args.ok) return { ...base, status: 'Failed', result: args.message };
      wakeAt = startedAt + args.data.seconds * 1000;
    } else {
      const args = parseToolArguments(WaitUntilArgs, call);
      if (!args.ok) return { ...base, status: 'Failed', result: args.message };
      const at = Date.parse(args.data.time);
      if (Number.isNaN(at)) return { ...base, status: 'Failed', result: `"${args.data.time}" is not an ISO-8601 date-time.` };
      if (at - startedAt > MAX_SLEEP_SECONDS * 1000) {
        return {
          ...base,
          status: 'Failed',
          result: `${args.data.time} is more than a year away; wait at most a year at a time (until ${new Date(startedAt + MAX_SLEEP_SECONDS * 1000).toISOString()}).`,
        };
      }
      wakeAt = Math.max(startedAt, at);
    }
    timer = { startedAt: new Date(startedAt).toISOString(), wakeAt: new Date(wakeAt).toISOString() };
    host.timers[call.toolCallId] = timer;
  }
  const startedAt = Date.parse(timer.startedAt);
  const wakeAt = Date.parse(timer.wakeAt);
  const left = wakeAt - host.clock();
  if (left > 0 && (await sleep(left)) === false) return INTERRUPTED;
  delete host.timers[call.toolCallId];
  const ms = wakeAt - startedAt;
  const now = host.clock();
  return {
    ...base,
    status: 'Success',
    result: `Waited ${Math.round(ms / 1000)} s; it is now ${new Date(now).toISOString()}.`,
    elapsedMs: now - startedAt,
    metadata: { waited_ms: ms },
  };
}

/** Whether a widget's tools run as the widget's (not for a history recorded before the widget came). */
function widgetInForce(widget: Widget, deps: StepDeps): boolean {
  const since = WIDGET_KINDS.find((k) => k.name === widget.name)?.since;
  return !since || !deps.since || deps.since(since);
}

/** Attaches metadata if it is valid (snake_case, <= 2 KB); otherwise notes why it was left out. */
function withMetadata(result: ToolCallResult, metadata: ToolCallResult['metadata']): ToolCallResult {
  const { metadata: _dropped, ...rest } = result;
  if (!metadata) return rest;
  try {
    checkMetadata(metadata);
    return { ...rest, metadata };
  } catch (err) {
    return { ...rest, metadata: { metadata_dropped: (err as Error).message.slice(0, 300) } };
  }
}

function iso(host: ToolStepHost): string {
  return new Date(host.clock()).toISOString();
}
