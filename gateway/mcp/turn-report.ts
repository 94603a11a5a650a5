/** How a turn's progress reads to the model that called send_message or get_state, and as JSON. */
import { effectKey } from '../../agent/index';
import { outcomeText } from '../../client/outcome-text';
import { runStateWord, workingOn } from '../../client/state-view';
import type { AgentStatus } from '../../workflows/messages';
import type { TurnProgress } from './await-turn';

/** The structured status of a turn blocked on what the agent waits for. */
const BLOCKED_STATUS: Record<string, string> = { approval: 'waiting_approval', unknown_outcome: 'waiting_resolution', error: 'blocked_by_error' };

export interface TurnReport {
  text: string;
  structured: Record<string, unknown>;
}

/** The calls an agent waits on, one line each, with what to do about them. */
export function approvalLines(agentId: string, s: AgentStatus): string[] {
  return s.awaitingApproval.map(
    (a) =>
      `- tool call ${a.toolCallId}: ${a.toolName} ${a.arguments} (${a.reason}); approve or deny it with approve_tool_call {agent_id: "${agentId}", tool_call_id: "${a.toolCallId}"}`,
  );
}

/** The calls an agent waits on because their outcome is unknown, one line each, with the effect's key and what to do. */
export function unknownOutcomeLines(agentId: string, s: AgentStatus): string[] {
  return (s.unknownOutcomes ?? []).map(
    (u) =>
      `- tool call ${u.toolCallId}: ${u.toolName} ${u.arguments}, started ${u.startedAt}, key ${effectKey(agentId, u.toolCallId)}: outcome unknown (${u.reason}); resolve it with resolve_tool_call {agent_id: "${agentId}", tool_call_id: "${u.toolCallId}", outcome: "done" | "failed" | "retry"}`,
  );
}

export function reportTurn(agentId: string, inputSeq: number, progress: TurnProgress): TurnReport {
  const later = `Call get_state with {agent_id: "${agentId}", input_seq: ${inputSeq}} later for the answer.`;
  if (progress.status === 'finished') {
    const { outcome } = progress;
    const structured = {
      agent_id: agentId,
      input_seq: inputSeq,
      status: outcome.status,
      ...(outcome.status === 'answered' ? { answer: outcomeText(outcome) } : {}),
    };
    return { text: outcomeText(outcome), structured };
  }
  const s = progress.state;
  const structured = {
    agent_id: agentId,
    input_seq: inputSeq,
    status: progress.status === 'blocked' ? (BLOCKED_STATUS[s.blockedOn ?? ''] ?? 'stopping') : 'working',
    run_state: runStateWord(s),
    awaiting_approval: s.awaitingApproval,
    ...(s.unknownOutcomes?.length ? { unknown_outcomes: s.unknownOutcomes } : {}),
  };
  const queued = s.consumedInputSeq < inputSeq ? ` Input #${inputSeq} is still queued behind an earlier turn.` : '';
  if (progress.status === 'working') {
    const doing = workingOn(s);
    return { text: `Input #${inputSeq} was accepted; agent "${agentId}" is still working on it${doing ? ` (${doing})` : ''}.${queued} ${later}`, structured };
  }
  if (s.blockedOn === 'approval') {
    return {
      text: [`Input #${inputSeq} was accepted; agent "${agentId}" is waiting for approval:${queued}`, ...approvalLines(agentId, s), later].join('\n'),
      structured,
    };
  }
  if (s.blockedOn === 'unknown_outcome') {
    return {
      text: [
        `Input #${inputSeq} was accepted; agent "${agentId}" is waiting for a resolution: whether a tool call had its effect is unknown.${queued}`,
        ...unknownOutcomeLines(agentId, s),
        later,
      ].join('\n'),
      structured,
    };
  }
  if (s.blockedOn === 'error') {
    return {
      text: `Input #${inputSeq} was accepted, but agent "${agentId}" is blocked by an error: ${s.lastError?.code}: ${s.lastError?.message}.${queued} A person can retry it (livecontext retry).`,
      structured,
    };
  }
  return { text: `Input #${inputSeq} was accepted, but agent "${agentId}" is stopping.`, structured };
}
