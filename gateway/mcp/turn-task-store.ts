/**
 * The MCP SDK's TaskStore for `send_message` tasks, backed by the agents themselves: a task is an
 * agent's turn (see turn-task-id), its status and result are read from the agent's state and the turn's
 * outcome (queries: no history event), and cancelling it interrupts the turn. Nothing is stored here, so
 * a task outlives the gateway that made it.
 */
import type { CreateTaskOptions, TaskStore } from '@modelcontextprotocol/sdk/experimental/tasks/interfaces.js';
import type { CallToolResult, Result, Task } from '@modelcontextprotocol/sdk/types.js';
import type { TurnOutcome } from '../../agent/index';
import { outcomeText } from '../../client/outcome-text';
import { type TurnPhaseName, turnPhase } from '../../client/turn-phase';
import type { AgentStatus } from '../../workflows/messages';
import { passRefusal, toHttpError } from '../http-errors';
import { awaitTurn, turnIsOver } from './await-turn';
import type { McpToolContext } from './tool-context';
import { reportTurn } from './turn-report';
import { ToolRefusal, requireFullScope, textResult } from './tool-results';
import { type TurnTaskRef, parseTurnTaskId, turnTaskId } from './turn-task-id';

/** Who interrupted, as the agent's history records it. */
export const MCP_CANCEL_BY = 'mcp tasks/cancel';
/** How long tasks/cancel waits for the interrupted turn to end, so the task it returns reads `cancelled`. */
const CANCEL_SETTLE_MS = 15_000;

/** What a send_message createTask hands the store (CreateTaskOptions.context). */
export interface TurnTaskContext {
  agentId: string;
  inputSeq: number;
}

/** Where a turn is, read from the agent: its state, and its outcome once the state says it is over. */
interface TurnLook {
  state: AgentStatus;
  outcome: TurnOutcome | undefined;
}

/** The MCP task status of each phase of a turn (client/turn-phase): a question ends the turn (its reply is a new task). */
const STATUS_OF: Record<TurnPhaseName, Task['status']> = {
  queued: 'working', // queued behind an earlier turn
  working: 'working',
  waiting: 'input_required',
  blocked: 'input_required', // a failed model call a person can retry: then it answers
  answered: 'completed',
  asked: 'completed',
  interrupted: 'cancelled',
  failed: 'failed',
  ignored: 'failed',
  stopped: 'failed',
  reset: 'failed',
  archived: 'failed',
};

export function taskStatusOf(look: TurnLook, ref: TurnTaskRef): Task['status'] {
  return STATUS_OF[turnPhase(look.state, ref.inputSeq, look.outcome).phase];
}

export class TurnTaskStore implements TaskStore {
  constructor(private readonly ctx: McpToolContext) {}

  async createTask(params: CreateTaskOptions): Promise<Task> {
    const turn = params.context as Partial<TurnTaskContext> | undefined;
    if (typeof turn?.agentId !== 'string' || typeof turn.inputSeq !== 'number') throw new Error('A turn task needs the agent and the input it took.');
    const ref = { agentId: turn.agentId, inputSeq: turn.inputSeq, createdMs: Date.now() };
    return this.taskOf(ref, { state: await this.ctx.agents.state(ref.agentId), outcome: undefined });
  }

  async getTask(taskId: string): Promise<Task | null> {
    const ref = parseTurnTaskId(taskId);
    const look = ref && (await this.look(ref));
    return ref && look ? this.taskOf(ref, look) : null;
  }

  async getTaskResult(taskId: string): Promise<Result> {
    const ref = parseTurnTaskId(taskId);
    const look = ref && (await this.look(ref));
    if (!ref || !look) throw new Error(`Task not found: ${taskId}`);
    if (!look.outcome) throw new Error(`Task ${taskId} is not over: agent "${ref.agentId}" is still on input #${ref.inputSeq}.`);
    return resultOf(ref, look.outcome);
  }

  /** Only cancelling means something for a turn: it interrupts the turn (when it is the one running). */
  async updateTaskStatus(taskId: string, status: Task['status']): Promise<void> {
    if (status !== 'cancelled') return; // the rest is the agent's to say
    requireFullScope(this.ctx.scope, 'tasks/cancel');
    const ref = parseTurnTaskId(taskId);
    const look = ref && (await this.look(ref));
    if (!ref || !look) throw new ToolRefusal(`Task not found: ${taskId}`);
    if (look.outcome) return;
    if (look.state.consumedInputSeq < ref.inputSeq) {
      throw new ToolRefusal(`Input #${ref.inputSeq} is still queued behind an earlier turn of agent "${ref.agentId}"; it can be cancelled once it runs.`);
    }
    await this.ctx.agents.interrupt(ref.agentId, MCP_CANCEL_BY, { inputSeq: ref.inputSeq }).catch(passRefusal('NOT_RUNNING')); // its turn ended meanwhile: the task reads the outcome
    await awaitTurn(this.ctx.agents, ref.agentId, ref.inputSeq, { waitMs: CANCEL_SETTLE_MS, pollMs: this.ctx.pollMs });
  }

  storeTaskResult(): Promise<void> {
    return Promise.reject(new Error("A turn task's result is the agent's answer; nothing is stored in the gateway."));
  }

  /** Turns are found from their agent, not listed across every agent. */
  listTasks(): Promise<{ tasks: Task[] }> {
    return Promise.resolve({ tasks: [] });
  }

  /** The agent's state and, once the turn is over, its outcome; undefined for an agent or input that does not exist. */
  private async look(ref: TurnTaskRef): Promise<TurnLook | undefined> {
    let state: AgentStatus;
    try {
      state = await this.ctx.agents.state(ref.agentId);
    } catch (err) {
      if (toHttpError(err).code === 'AGENT_NOT_FOUND') return undefined;
      throw err;
    }
    if (ref.inputSeq >= state.nextInputSeq) return undefined;
    const outcome = turnIsOver(state, ref.inputSeq) ? await this.ctx.agents.finishedTurn(ref.agentId, ref.inputSeq) : undefined;
    return { state, outcome };
  }

  private taskOf(ref: TurnTaskRef, look: TurnLook): Task {
    const status = taskStatusOf(look, ref);
    const progress = look.outcome ? { status: 'finished' as const, outcome: look.outcome } : { status: 'working' as const, state: look.state };
    const blocked = status === 'input_required' ? { status: 'blocked' as const, state: look.state } : progress;
    const message = status === 'working' ? undefined : reportTurn(ref.agentId, ref.inputSeq, blocked).text;
    return {
      taskId: turnTaskId(ref),
      status,
      ttl: null, // kept as long as the agent keeps the turn
      createdAt: new Date(ref.createdMs).toISOString(),
      lastUpdatedAt: new Date().toISOString(), // as of this look
      pollInterval: Math.max(this.ctx.pollMs, 500),
      ...(message ? { statusMessage: message.slice(0, 2000) } : {}),
    };
  }
}

/** The tool result of a finished turn, as a send_message that waited would have answered it. */
function resultOf(ref: TurnTaskRef, outcome: TurnOutcome): CallToolResult {
  const report = reportTurn(ref.agentId, ref.inputSeq, { status: 'finished', outcome });
  const result = textResult(report.text, report.structured);
  return outcome.status === 'answered' || outcome.status === 'asked'
    ? result
    : { ...result, isError: true, content: [{ type: 'text', text: outcomeText(outcome) }] };
}
