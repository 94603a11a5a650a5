/**
 * What a remote A2A agent's answer becomes for the model: a completed task's artifacts (text parts as they
 * are, data parts as JSON), a direct message's text, an `input-required` task as a result that says what
 * the remote asks and how to answer it (the same tool, with `taskId` and `contextId`), and a task that
 * failed, was canceled or rejected (or wants other authentication) as a tool error. Pure: no SDK at run time.
 */
import type { Message, Part, Task } from '@a2a-js/sdk';
import type { ToolOutput } from '../tools/define-tool';

/** The SDK's TaskState values (its enum, by number, so this file loads nothing at run time). */
export const A2A_STATE = { submitted: 1, working: 2, completed: 3, failed: 4, canceled: 5, inputRequired: 6, rejected: 7, authRequired: 8 } as const;
const STATE_NAMES: Record<number, string> = {
  1: 'submitted',
  2: 'working',
  3: 'completed',
  4: 'failed',
  5: 'canceled',
  6: 'input-required',
  7: 'rejected',
  8: 'auth-required',
};

export const stateName = (state: number | undefined): string => STATE_NAMES[state ?? 0] ?? 'unknown';

/** A state where the remote waits for nobody but us, or is over: following stops there. */
export function isPaused(state: number | undefined): boolean {
  return state !== undefined && state !== A2A_STATE.submitted && state !== A2A_STATE.working && state > 0;
}

/** The SDK's answer to SendMessage: a task, or a message when the agent answered at once. */
export const isTask = (r: Task | Message): r is Task => 'id' in r && 'status' in r;

/** A remote task that ended without an answer (failed, canceled, rejected, wants authentication). */
export class A2aTaskError extends Error {
  constructor(
    message: string,
    readonly state: string,
  ) {
    super(message);
    this.name = new.target.name;
  }
}

/** The text of parts: text as it is, data as JSON, a file by its name and URL. */
export function partsText(parts: readonly Part[] | undefined): string {
  return (parts ?? [])
    .map((p) => {
      const c = p.content;
      if (c?.$case === 'text') return c.value;
      if (c?.$case === 'data') return JSON.stringify(c.value);
      if (c?.$case === 'url') return `[file ${p.filename || ''} ${c.value}]`.replace(/\s+/g, ' ');
      if (c?.$case === 'raw') return `[file ${p.filename || '(unnamed)'}, ${p.mediaType || 'bytes'}, not shown]`;
      return '';
    })
    .filter(Boolean)
    .join('\n');
}

/** The tool's output for a remote answer `agent` (the tool's name) got; throws A2aTaskError for one that is no answer. */
export function a2aResult(agent: string, answer: Task | Message): ToolOutput {
  if (!isTask(answer)) {
    return { text: partsText(answer.parts), metadata: { a2a_agent: agent, ...(answer.contextId ? { a2a_context_id: answer.contextId } : {}) } };
  }
  const state = answer.status?.state;
  const said = partsText(answer.status?.message?.parts);
  const ids = { a2a_agent: agent, a2a_task_id: answer.id, a2a_context_id: answer.contextId, a2a_state: stateName(state) };
  if (state === A2A_STATE.completed) {
    const artifacts = answer.artifacts.map((a) => partsText(a.parts)).filter(Boolean);
    return { text: artifacts.length ? artifacts.join('\n\n') : said, metadata: ids };
  }
  if (state === A2A_STATE.inputRequired) {
    const follow = JSON.stringify({ message: '<your answer>', taskId: answer.id, contextId: answer.contextId });
    return {
      text: `The agent "${agent}" needs input before it can go on (task ${answer.id}, context ${answer.contextId}): ${said || '(it gave no question)'}\nTo answer it, call ${agent} again with ${follow}.`,
      metadata: ids,
    };
  }
  const why = said ? `: ${said}` : '';
  if (state === A2A_STATE.failed) throw new A2aTaskError(`The agent "${agent}" failed its task ${answer.id}${why}`, 'failed');
  if (state === A2A_STATE.canceled) throw new A2aTaskError(`The agent "${agent}"'s task ${answer.id} was canceled${why}`, 'canceled');
  if (state === A2A_STATE.rejected) throw new A2aTaskError(`The agent "${agent}" rejected the task ${answer.id}${why}`, 'rejected');
  if (state === A2A_STATE.authRequired)
    throw new A2aTaskError(`The agent "${agent}" asks for authentication this worker cannot give (task ${answer.id})${why}`, 'auth-required');
  throw new A2aTaskError(`The agent "${agent}"'s task ${answer.id} is in a state this client does not know (${stateName(state)})${why}`, stateName(state));
}
