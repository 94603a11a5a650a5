/**
 * Delegation to sub-agents: the model sees each profile of `config.subAgents` as a tool
 * `ask_<name> {task}`; a call starts a child agent (a child workflow) whose answer becomes the call's
 * result. The calls in flight are part of the agent's state (carried across continue-as-new, like
 * timers), and a result reaches the parent's current run by signal, whatever run started the child.
 */
import { z } from 'zod';
import type { AgentConfig, SubAgentProfile } from './agent-config';
import type { TurnOutcome } from './agent';
import { MAX_DERIVED_ID_CHARS, shortenId } from './short-id';

export const SUB_AGENT_TOOL_PREFIX = 'ask_';
/** A child is at most this deep (a child of a child of a child). */
export const MAX_SUB_AGENT_DEPTH = 3;
/** Children of one agent running at once; more calls fail, telling the model to wait for some. */
export const MAX_RUNNING_SUB_AGENTS = 8;
/** The workflow patch (StepDeps.since) behind delegation: a history recorded before it ran the name as an ordinary tool. */
export const SUB_AGENTS_CHANGE = 'sub-agents';
/**
 * The workflow patch (StepDeps.since) behind sub-agents that never answer: since it, a child that could
 * not start, or that ended without reporting, gives its call a Failed result instead of a wait; and a
 * long parent id gives its children shortened ids and sender (see short-id.ts). Asked only when it matters.
 */
export const SUB_AGENT_FAILURES_CHANGE = 'sub-agent-failures';

export const SubAgentArgs = z
  .object({
    task: z
      .string()
      .min(1)
      .max(64 * 1024)
      .describe('What the sub-agent should do, with everything it needs to know'),
  })
  .strict();

/** A delegation in flight or just answered, by toolCallId (in snapshots as `subAgentCalls`). */
export const SubAgentCall = z.object({
  agentId: z.string().min(1),
  profile: z.string(),
  startedAt: z.string(),
  result: z.object({ status: z.enum(['Success', 'Failed']), text: z.string() }).optional(),
});
export type SubAgentCall = z.infer<typeof SubAgentCall>;

/** What a child sends its parent when its task has an outcome (the `subAgentResult` signal). */
export const SubAgentResult = z.object({
  toolCallId: z.string().min(1),
  agentId: z.string().min(1),
  status: z.enum(['Success', 'Failed']),
  text: z.string().max(1024 * 1024),
});
export type SubAgentResult = z.infer<typeof SubAgentResult>;

/** The profile a tool name asks for, if the agent has it. */
export function subAgentProfile(config: AgentConfig, toolName: string): { name: string; profile: SubAgentProfile } | undefined {
  if (!toolName.startsWith(SUB_AGENT_TOOL_PREFIX) || !config.subAgents) return undefined;
  const name = toolName.slice(SUB_AGENT_TOOL_PREFIX.length);
  const profile = Object.prototype.hasOwnProperty.call(config.subAgents, name) ? config.subAgents[name] : undefined;
  return profile ? { name, profile } : undefined;
}

/** The tools the model is offered for the agent's sub-agents. */
export function subAgentTools(config: AgentConfig): Array<{ name: string; description: string }> {
  return Object.entries(config.subAgents ?? {}).map(([name, p]) => ({
    name: `${SUB_AGENT_TOOL_PREFIX}${name}`,
    description: `Delegate a task to the ${name} sub-agent${p.description ? ` (${p.description})` : ''}; its answer is the result. Give it everything it needs: it does not see this conversation.`,
  }));
}

/** The configuration of a child started from `profile` by `parent` for `toolCallId`. */
export function childConfig(parent: AgentConfig, parentId: string, toolCallId: string, profile: SubAgentProfile): AgentConfig {
  const { description: _d, systemInstruction: _s, canDelegate, budgets, ...rest } = profile;
  const depth = (parent.delegatedBy?.depth ?? 0) + 1;
  return {
    ...rest,
    ...((budgets ?? parent.budgets) ? { budgets: budgets ?? parent.budgets } : {}),
    ...(canDelegate && parent.subAgents && depth < MAX_SUB_AGENT_DEPTH ? { subAgents: parent.subAgents } : {}),
    delegatedBy: { agentId: parentId, toolCallId, depth },
  };
}

/** The workflow patch (StepDeps.since) behind settledOnImport: an imported history recorded before it waited on. */
export const EXPORT_SETTLES_SUB_AGENTS_CHANGE = 'import-settles-sub-agents';

/**
 * The sub-agent calls of an imported snapshot: each one still working at export gets a Failed result.
 * Its child works for the original agent, reports to it, and would never answer the copy; the model of
 * the copy sees that, and delegates again if it still needs the answer (a child may have side effects,
 * so it is not re-run unasked). Answers that had arrived are kept.
 */
export function settledOnImport(calls: Record<string, SubAgentCall>): Record<string, SubAgentCall> {
  return Object.fromEntries(
    Object.entries(calls).map(([id, c]) => [
      id,
      c.result
        ? c
        : {
            ...c,
            result: {
              status: 'Failed' as const,
              text: `Interrupted by export: the sub-agent ${c.agentId.slice(0, 300)} was still working when this agent was exported, and it answers the original agent, not this copy. Delegate the task again if you still need its answer.`,
            },
          },
    ]),
  );
}

/**
 * The id of the child a call starts, and the sender of its task. Deterministic and unique per call: the
 * parent, the profile, the output's seq and the call's place in it. Ids and the sender stay within
 * MAX_DERIVED_ID_CHARS (shortened with a hash past it): a long parent id made its children's first input
 * invalid, and they never answered. `mayShorten` is asked only for an id that is too long (a history
 * recorded before SUB_AGENT_FAILURES_CHANGE kept it whole).
 */
export function subAgentIds(
  parentId: string,
  call: { profile: string; batchSeq: number; index: number },
  mayShorten: () => boolean,
): { childId: string; sender: string } {
  const suffix = `--${call.profile}-${call.batchSeq}-${call.index + 1}`;
  const long = (id: string) => id.length > MAX_DERIVED_ID_CHARS && mayShorten();
  const childId = long(parentId + suffix) ? shortenId(parentId, suffix) : parentId + suffix;
  const sender = long(parentId) ? shortenId(parentId) : parentId;
  return { childId, sender };
}

/**
 * What a sub-agent tells its parent about its task (its first input): the turn's outcome once there is
 * one, or, when it was stopped or reset first, that it ended without an answer (`stopped`: the stop
 * reason, or 'reset'). Undefined while neither: nothing to report yet.
 */
export function subAgentReport(outcome: TurnOutcome | undefined, stopped: string | undefined): Pick<SubAgentResult, 'status' | 'text'> | undefined {
  if (!outcome && stopped === undefined) return undefined;
  const [status, text]: ['Success' | 'Failed', string] =
    outcome?.status === 'answered'
      ? ['Success', outcome.answer.contents.join('\n')]
      : outcome?.status === 'asked'
        ? ['Failed', `The sub-agent needs an answer it cannot get: ${outcome.question}`]
        : outcome?.status === 'error'
          ? ['Failed', `The sub-agent failed: ${outcome.error.message}`]
          : ['Failed', `The sub-agent ended without an answer (${outcome?.status ?? `stopped: ${stopped}`}).`];
  return { status, text: text.slice(0, 1024 * 1024) };
}

/** The Failed result of a call whose child ended without reporting (SUB_AGENT_FAILURES_CHANGE): `why` it ended. */
export function subAgentEndedResult(toolCallId: string, agentId: string, why: string | undefined): SubAgentResult {
  return { toolCallId, agentId, status: 'Failed', text: `The sub-agent ${agentId} ended without an answer: ${why}.`.slice(0, 64 * 1024) };
}
