/** How a turn's progress reads to the model that called send_message or get_state, and as JSON. */
import { outcomeText } from '../../client/outcome-text';
import { runStateWord, workingOn } from '../../client/state-view';
import type { AgentStatus } from '../../workflows/messages';
import type { TurnProgress } from './await-turn';

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
    status:
      progress.status === 'blocked' ? (s.blockedOn === 'approval' ? 'waiting_approval' : s.blockedOn === 'error' ? 'blocked_by_error' : 'stopping') : 'working',
    run_state: runStateWord(s),
    awaiting_approval: s.awaitingApproval,
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
  if (s.blockedOn === 'error') {
    return {
      text: `Input #${inputSeq} was accepted, but agent "${agentId}" is blocked by an error: ${s.lastError?.code}: ${s.lastError?.message}.${queued} A person can retry it (livecontext retry).`,
      structured,
    };
  }
  return { text: `Input #${inputSeq} was accepted, but agent "${agentId}" is stopping.`, structured };
}
