/**
 * An A2A task read from the agent's state: the turn's outcome (a query) when it is over, else the agent's
 * state (queued, working, or waiting for a person). Nothing is kept in the gateway, so the same task reads
 * the same from any gateway, before and after a restart of the gateway or of the worker.
 */
import { WorkflowNotFoundError } from '@temporalio/client';
import { type Artifact, type Message, type Part, Role, type Task, TaskState } from '@a2a-js/sdk';
import { TaskNotFoundError } from '@a2a-js/sdk/errors';
import type { ModelInputEntry, TurnOutcome } from '../../agent/index';
import type { AgentClient } from '../../client/agent-client';
import { turnPhase } from '../../client/turn-phase';
import type { AgentStatus } from '../../workflows/messages';
import { inputText } from '../events/derive-events';
import { type TurnRef, taskIdOf } from './task-id';

export const textPart = (text: string): Part => ({ content: { $case: 'text', value: text }, metadata: undefined, filename: '', mediaType: 'text/plain' });
export const dataPart = (value: unknown): Part => ({ content: { $case: 'data', value }, metadata: undefined, filename: '', mediaType: 'application/json' });

/** A task's states after which nothing more happens to it. */
export const FINAL_STATES: ReadonlySet<TaskState> = new Set([
  TaskState.TASK_STATE_COMPLETED,
  TaskState.TASK_STATE_FAILED,
  TaskState.TASK_STATE_CANCELED,
  TaskState.TASK_STATE_REJECTED,
]);
/** States where a stream of the task ends: final ones, and a wait for the caller (its reply continues it). */
export const isPause = (s: TaskState | undefined) => s !== undefined && (FINAL_STATES.has(s) || s === TaskState.TASK_STATE_INPUT_REQUIRED);

export function agentMessage(ref: TurnRef, id: string, parts: Part[], role: Role = Role.ROLE_AGENT): Message {
  return { messageId: id, contextId: ref.agentId, taskId: taskIdOf(ref), role, parts, metadata: undefined, extensions: [], referenceTaskIds: [] };
}

/** The agent's state, or TaskNotFound when there is no such agent. */
export async function agentState(agents: AgentClient, ref: TurnRef): Promise<AgentStatus> {
  try {
    return await agents.state(ref.agentId);
  } catch (err) {
    if (err instanceof WorkflowNotFoundError) throw new TaskNotFoundError(`No task ${taskIdOf(ref)}: there is no agent ${ref.agentId}.`);
    throw err;
  }
}

/** The task of the turn `ref` as it is now. */
export async function readTask(agents: AgentClient, ref: TurnRef): Promise<Task> {
  const status = await agentState(agents, ref);
  if (ref.inputSeq >= status.nextInputSeq)
    throw new TaskNotFoundError(`No task ${taskIdOf(ref)}: agent ${ref.agentId} has taken ${status.nextInputSeq - 1} inputs.`);
  const outcome = ref.inputSeq <= status.consumedInputSeq ? await agents.finishedTurn(ref.agentId, ref.inputSeq) : undefined;
  const phase = turnPhase(status, ref.inputSeq, outcome);
  if (phase.outcome) return finishedTask(agents, ref, phase.outcome);
  const task = (state: TaskState, message?: Message): Task => ({
    id: taskIdOf(ref),
    contextId: ref.agentId,
    status: { state, message, timestamp: undefined },
    artifacts: [],
    history: [],
    metadata: { inputSeq: ref.inputSeq },
  });
  if (phase.phase === 'queued') return task(TaskState.TASK_STATE_SUBMITTED);
  const approvals = phase.waits.filter((w) => w.kind === 'approval');
  if (approvals.length) {
    const calls = approvals.map((a) => ({
      toolCallId: a.toolCallId!,
      toolName: a.toolName!,
      arguments: a.arguments!,
      reason: a.reason ?? '',
      waitId: a.waitId,
    }));
    const lines = calls.map((a) => `${a.toolName}(${a.arguments}): ${a.reason}`);
    const text = `Waiting for approval of ${lines.join('; ')}. Reply "approve", or "deny" and a reason (or a data part {"approved": bool, "reason"?, "toolCallId"? or "waitId"?}).`;
    return task(
      TaskState.TASK_STATE_INPUT_REQUIRED,
      agentMessage(ref, `approval-${calls[0].toolCallId}`, [textPart(text), dataPart({ awaitingApproval: calls })]),
    );
  }
  const unknown = phase.waits.find((w) => w.kind === 'unknown_outcome');
  if (unknown) {
    const text = `Tool call ${unknown.toolName}(${unknown.arguments}) has an unknown outcome (${unknown.reason}); a person resolves it (livecontext resolve, REST or the page).`;
    return task(TaskState.TASK_STATE_WORKING, agentMessage(ref, `unknown-${unknown.toolCallId}`, [textPart(text)]));
  }
  return task(TaskState.TASK_STATE_WORKING);
}

async function finishedTask(agents: AgentClient, ref: TurnRef, outcome: TurnOutcome): Promise<Task> {
  const base = { id: taskIdOf(ref), contextId: ref.agentId, metadata: { inputSeq: ref.inputSeq, outcome: outcome.status } };
  const ended = (state: TaskState, text?: string, id = `end-${ref.inputSeq}`): Task => ({
    ...base,
    status: { state, message: text === undefined ? undefined : agentMessage(ref, id, [textPart(text)]), timestamp: undefined },
    artifacts: [],
    history: [],
  });
  switch (outcome.status) {
    case 'answered': {
      const input = await inputEntry(agents, ref.agentId, outcome.inputEntrySeq);
      const text = outcome.answer.contents.join('');
      const parts = [textPart(text)];
      if (input?.responseSchema) {
        try {
          parts.push(dataPart(JSON.parse(text))); // a typed answer: also as data
        } catch {
          // not JSON after all: the text alone
        }
      }
      const artifact: Artifact = { artifactId: `answer-${outcome.answer.seq}`, name: 'answer', description: '', parts, metadata: undefined, extensions: [] };
      const history = input ? [agentMessage(ref, `input-${input.seq}`, [textPart(inputText(input))], Role.ROLE_USER)] : [];
      return {
        ...base,
        status: {
          state: TaskState.TASK_STATE_COMPLETED,
          message: agentMessage(ref, `answer-${outcome.answer.seq}`, parts),
          timestamp: outcome.answer.timestamp,
        },
        artifacts: [artifact],
        history,
      };
    }
    case 'asked': {
      const task = ended(TaskState.TASK_STATE_INPUT_REQUIRED, outcome.question, `question-${ref.inputSeq}`);
      return outcome.waitId ? { ...task, metadata: { ...task.metadata, waitId: outcome.waitId } } : task;
    }
    case 'interrupted':
      return ended(TaskState.TASK_STATE_CANCELED, `Interrupted${outcome.by ? ` by ${outcome.by}` : ''}.`);
    case 'error':
      return ended(TaskState.TASK_STATE_FAILED, `${outcome.error.code}: ${outcome.error.message}`);
    case 'ignored':
      return ended(TaskState.TASK_STATE_REJECTED, outcome.reason);
    case 'stopped':
      return ended(TaskState.TASK_STATE_CANCELED, 'The agent was stopped.');
    case 'reset':
      return ended(TaskState.TASK_STATE_CANCELED, 'The agent was reset.');
    case 'archived':
      return ended(TaskState.TASK_STATE_COMPLETED, 'This turn is archived: its answer is in the agent’s history.');
    case 'continued':
      return ended(TaskState.TASK_STATE_WORKING);
  }
}

async function inputEntry(agents: AgentClient, agentId: string, seq: number): Promise<ModelInputEntry | undefined> {
  const page = await agents.entries(agentId, { afterSeq: seq - 1, uptoSeq: seq, limit: 1 });
  const entry = page.entries[0];
  return entry?.seq === seq && entry.kind === 'model_input' ? entry : undefined;
}
