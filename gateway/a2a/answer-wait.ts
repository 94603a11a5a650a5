/**
 * An A2A reply to an `input-required` task answers what the turn waits for: a pending approval (the
 * reply decides the tool call; the same task goes on) or an `ask_user` question (the reply is the agent's
 * next input, so its turn is a new task). Both go through the agent's one wait (door `a2a`): the first
 * answer through any door wins, and a later one is refused naming it.
 */
import type { Message, Task } from '@a2a-js/sdk';
import { RequestMalformedError, UnsupportedOperationError } from '@a2a-js/sdk/errors';
import type { AgentClient } from '../../client/agent-client';
import { toHttpError } from '../http-errors';
import { type TurnRef, taskIdOf } from './task-id';

const APPROVE = /^\s*(approve|approved|yes|y|ok|allow)\b/i;
const DENY = /^\s*(deny|denied|no|n|reject)\b[\s:,.-]*/i;

export const replyText = (m: Message) =>
  m.parts
    .map((p) => (p.content?.$case === 'text' ? p.content.value : ''))
    .filter(Boolean)
    .join('\n');
const replyData = (m: Message): Record<string, unknown> | undefined => {
  const part = m.parts.find((p) => p.content?.$case === 'data');
  const value = part?.content?.$case === 'data' ? part.content.value : undefined;
  return value && typeof value === 'object' && !Array.isArray(value) ? (value as Record<string, unknown>) : undefined;
};

/** Answers the wait of `task` (input-required) with `reply`; returns the turn that goes on (the same one, or the reply's). */
export async function answerWait(agents: AgentClient, ref: TurnRef, task: Task, reply: Message, sender: string): Promise<TurnRef> {
  try {
    return await answer(agents, ref, task, reply, sender);
  } catch (err) {
    // The agent refused the answer (e.g. "already answered by rest at …"): the caller reads its reason.
    const http = toHttpError(err, ref.agentId);
    if (http.status >= 400 && http.status < 500) throw new UnsupportedOperationError(`${http.code}: ${http.message}`);
    throw err;
  }
}

async function answer(agents: AgentClient, ref: TurnRef, task: Task, reply: Message, sender: string): Promise<TurnRef> {
  const data = replyData(reply);
  if (typeof data?.waitId === 'string' && typeof data.approved === 'boolean') {
    // A reply naming its wait answers that wait, however the task reads now: one answered meanwhile through another door is refused naming it.
    const reason = typeof data.reason === 'string' ? { reason: data.reason } : {};
    await agents.answerWait(ref.agentId, data.waitId, { approved: data.approved, ...reason }, { by: sender, door: 'a2a' });
    return ref;
  }
  const pending = awaiting(task);
  if (pending.length) {
    const text = replyText(reply);
    const approved = typeof data?.approved === 'boolean' ? data.approved : APPROVE.test(text) ? true : DENY.test(text) ? false : undefined;
    if (approved === undefined) throw new RequestMalformedError(`Task ${taskIdOf(ref)} waits for an approval: reply "approve" or "deny <reason>".`);
    const toolCallId = typeof data?.toolCallId === 'string' ? data.toolCallId : pending[0];
    const reason = typeof data?.reason === 'string' ? data.reason : approved ? undefined : text.replace(DENY, '').trim() || undefined;
    await (approved ? agents.approve(ref.agentId, toolCallId, sender, 'a2a') : agents.deny(ref.agentId, toolCallId, reason, sender, 'a2a'));
    return ref;
  }
  if (task.metadata?.outcome === 'asked') {
    const text = replyText(reply);
    if (!text.trim()) throw new RequestMalformedError('The reply to a question needs a text part.');
    const waitId = typeof task.metadata?.waitId === 'string' ? task.metadata.waitId : undefined;
    if (waitId) {
      const answered = await agents.answerWait(ref.agentId, waitId, { text }, { by: sender, door: 'a2a' });
      if (answered.inputSeq !== undefined) return { agentId: ref.agentId, inputSeq: answered.inputSeq };
    }
    const sent = await agents.send(ref.agentId, { text, sender, idempotencyKey: `a2a:${reply.messageId}` });
    return { agentId: ref.agentId, inputSeq: sent.inputSeq };
  }
  throw new UnsupportedOperationError(`Task ${taskIdOf(ref)} is not waiting for input: send a message without a taskId to start a new one.`);
}

/** Tool call ids a task's status says wait for approval. */
function awaiting(task: Task): string[] {
  for (const part of task.status?.message?.parts ?? []) {
    const value = part.content?.$case === 'data' ? (part.content.value as { awaitingApproval?: Array<{ toolCallId: string }> }) : undefined;
    if (value?.awaitingApproval) return value.awaitingApproval.map((a) => a.toolCallId);
  }
  return [];
}
