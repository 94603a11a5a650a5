/**
 * The MCP elicitation door to an agent's waits: while send_message follows a turn that waits on a person
 * (a tool call's approval, or the agent's ask_user question), a client that declared form elicitation is
 * asked directly (elicitation/create, on the call's own stream), and its answer answers the wait through
 * AgentClient.answerWait, door `mcp`. The first answer through any door wins: a later one is refused, and
 * the reply says who answered.
 */
import type { OpenWait } from '../../agent/index';
import type { RequestHandlerExtra } from '@modelcontextprotocol/sdk/shared/protocol.js';
import { ElicitResultSchema, type ElicitRequestFormParams, type ServerNotification, type ServerRequest } from '@modelcontextprotocol/sdk/types.js';
import { toHttpError } from '../http-errors';
import type { McpToolContext } from './tool-context';

export type ElicitedWait =
  /** Answered through this door; for a question, `inputSeq` is the reply's input, whose turn follows. */
  | { status: 'answered'; inputSeq?: number; note: string }
  /** Another door answered first: `note` names who and when. */
  | { status: 'already_answered'; note: string }
  /** Cancelled, not answered, or the question could not be asked: the wait stays open. */
  | { status: 'open'; note?: string };

/** The elicitation that asks for one wait, or undefined for a kind this door does not ask about. */
export function elicitationFor(agentId: string, wait: OpenWait): ElicitRequestFormParams | undefined {
  if (wait.kind === 'approval') {
    return {
      mode: 'form',
      message: `Agent "${agentId}" asks to run tool call ${wait.toolCallId}: ${wait.toolName} ${wait.arguments ?? ''}${wait.reason ? ` (${wait.reason})` : ''}. Approve it?`,
      requestedSchema: {
        type: 'object',
        properties: {
          approved: { type: 'boolean', title: 'Approve', description: `true runs ${wait.toolName}, false denies it` },
          reason: { type: 'string', title: 'Reason', description: "Why (the agent's model sees it when denied)" },
        },
        required: ['approved'],
      },
    };
  }
  if (wait.kind === 'question') {
    return {
      mode: 'form',
      message: `Agent "${agentId}" asks: ${wait.question ?? ''}`,
      requestedSchema: { type: 'object', properties: { text: { type: 'string', title: 'Your answer' } }, required: ['text'] },
    };
  }
  return undefined;
}

/**
 * Asks the client about `wait` and answers the wait with what it says: accept answers, decline denies an
 * approval, cancel (or no usable answer within `timeoutMs`) leaves the wait open.
 */
export async function elicitWait(
  ctx: McpToolContext,
  agentId: string,
  wait: OpenWait,
  extra: RequestHandlerExtra<ServerRequest, ServerNotification>,
  timeoutMs: number,
): Promise<ElicitedWait> {
  const params = elicitationFor(agentId, wait);
  if (!params) return { status: 'open' };
  let result;
  try {
    result = await extra.sendRequest({ method: 'elicitation/create', params }, ElicitResultSchema, { timeout: timeoutMs, signal: extra.signal });
  } catch (err) {
    return { status: 'open', note: `The question to the client about ${wait.waitId} got no answer (${(err as Error).message}).` };
  }
  const content = result.content ?? {};
  let answer: { approved: boolean; reason?: string } | { text: string } | undefined;
  if (wait.kind === 'approval') {
    const reason = typeof content.reason === 'string' && content.reason ? { reason: content.reason } : {};
    if (result.action === 'accept' && typeof content.approved === 'boolean') answer = { approved: content.approved, ...reason };
    else if (result.action === 'decline') answer = { approved: false, ...reason };
  } else if (result.action === 'accept' && typeof content.text === 'string' && content.text) {
    answer = { text: content.text };
  }
  if (!answer) return { status: 'open' };
  try {
    const done = await ctx.agents.answerWait(agentId, wait.waitId, answer, { door: 'mcp', ...(ctx.client?.name ? { by: ctx.client.name } : {}) });
    const what =
      'approved' in answer ? (answer.approved ? `Approved tool call ${wait.toolCallId}` : `Denied tool call ${wait.toolCallId}`) : 'Answered the question';
    return {
      status: 'answered',
      ...(done.inputSeq !== undefined ? { inputSeq: done.inputSeq } : {}),
      note: `${what} (${wait.waitId}) through MCP elicitation${done.inputSeq !== undefined ? `; the answer is input #${done.inputSeq}` : ''}.`,
    };
  } catch (err) {
    const e = toHttpError(err);
    if (e.code === 'ALREADY_ANSWERED') return { status: 'already_answered', note: `Your elicitation answer was not used: ${e.message}` };
    return { status: 'open', note: `Your elicitation answer was refused: ${e.code}: ${e.message}` };
  }
}
