/**
 * The asker of one MCP tool call (server-connection's McpAsker): the server's question goes to the call's
 * `elicit` (the agent's wait, tools/elicit-through-agent.ts), and its answer back as the ElicitResult.
 * While the question is open the call's heartbeat says so (beside the MCP task it follows, if any). The
 * answers given are kept for the call's result metadata (`elicitations`: wait, action, door; not the content).
 */
import type { ElicitResult } from '@modelcontextprotocol/sdk/types.js';
import type { JsonValue } from '../../agent/index';
import type { ToolContext } from '../tools/define-tool';
import type { McpAsker, McpServerConnection } from './server-connection';
import { MCP_TASK_DETAILS_KEY } from './task-call';

export interface CallAsker extends McpAsker {
  /** What was answered, for the result's metadata (empty: nothing was asked). */
  answered: Array<Record<string, JsonValue>>;
}

/** An asker for the call `ctx`, or none when the tool runs where nobody can be asked (no `elicit`). */
export function callAsker(ctx: ToolContext, tool: string, connection: McpServerConnection, taskId?: string): CallAsker | undefined {
  const elicit = ctx.elicit;
  if (!elicit) return undefined;
  const asker: CallAsker = {
    ...(taskId ? { taskId } : {}),
    answered: [],
    async elicit(question, signal): Promise<ElicitResult> {
      const message = connection.redact(question.message);
      ctx.heartbeat({
        tool_call_id: ctx.toolCallId,
        tool,
        progress: 0,
        message: `waiting for an answer to ${connection.name}'s question: ${message.slice(0, 200)}`,
        ...(asker.taskId ? { [MCP_TASK_DETAILS_KEY]: asker.taskId } : {}),
      });
      const answer = await elicit({ message, requestedSchema: question.requestedSchema, server: connection.name }, AbortSignal.any([signal, ctx.signal]));
      asker.answered.push({ action: answer.action, ...(answer.door ? { door: answer.door } : {}), ...(answer.by ? { by: answer.by } : {}), at: answer.at });
      return answer.action === 'accept' ? { action: 'accept', content: (answer.content ?? {}) as ElicitResult['content'] } : { action: answer.action };
    },
  };
  return asker;
}
