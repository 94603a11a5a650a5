/**
 * A call of `ask_<name>` for a profile in `config.subAgents` starts a child agent (StepDeps.delegate)
 * and waits for its answer, which becomes the call's result. The call is kept in the agent's state
 * (`host.subAgentCalls`) from its start, so a wait interrupted by a new run resumes, and the child is
 * not started twice. A sub-agent named in the agent's own configuration is allowed by it, whatever the
 * tool allowance says.
 */
import { InfrastructureError } from '../errors';
import { parseToolArguments } from '../lenient-args';
import type { ToolCallResult } from '../entries';
import {
  MAX_RUNNING_SUB_AGENTS,
  MAX_SUB_AGENT_DEPTH,
  SUB_AGENT_FAILURES_CHANGE,
  SUB_AGENTS_CHANGE,
  SubAgentArgs,
  childConfig,
  subAgentProfile,
} from '../sub-agents';
import { INTERRUPTED, type ToolKind, callBase, isoNow } from './tool-kind';

type Delegation = NonNullable<ReturnType<typeof subAgentProfile>>;

export const subAgentKind: ToolKind<Delegation> = {
  name: 'sub-agent',
  allowedBy: 'own',
  recognise: ({ call, host }) => subAgentProfile(host.config, call.toolName),
  change: () => SUB_AGENTS_CHANGE,
  async run({ call, host, deps }, { name, profile }) {
    const fail = (result: string): ToolCallResult => ({ ...callBase(call), status: 'Failed', result, elapsedMs: 0 });
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
      pending = { agentId: '', profile: name, startedAt: isoNow(host) };
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
    return { ...callBase(call), status: result.status, result: result.text, elapsedMs, metadata: { sub_agent: pending.agentId.slice(0, 300) } };
  },
};
