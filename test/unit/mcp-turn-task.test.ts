/** The MCP task a send_message makes: its id names the agent's turn, and its status is read from the agent. */
import type { TurnOutcome } from '../../agent/index';
import { parseTurnTaskId, turnTaskId } from '../../gateway/mcp/turn-task-id';
import { taskStatusOf } from '../../gateway/mcp/turn-task-store';
import { taskIdIn } from '../../activities/mcp/task-call';
import type { AgentStatus } from '../../workflows/messages';

const ref = { agentId: 'team/a.b c#1', inputSeq: 3, createdMs: 1_790_000_000_000 };

test('a turn task id round-trips any agent id; ids not made here are not found', () => {
  expect(parseTurnTaskId(turnTaskId(ref))).toEqual(ref);
  expect(parseTurnTaskId(turnTaskId({ ...ref, agentId: 'x.1.2' }))).toEqual({ ...ref, agentId: 'x.1.2' });
  for (const bad of ['', 'made-up', 'lc-turn.0.1.a', 'lc-turn.1.2.', 'lc-turn.x.2.a', 'lc-turn.99999999999999999.1.a'])
    expect(parseTurnTaskId(bad)).toBeUndefined();
});

const state = (s: Partial<AgentStatus>) => ({ consumedInputSeq: 3, nextInputSeq: 4, blockedOn: null, ...s }) as AgentStatus;
const outcome = (o: Partial<TurnOutcome>) => ({ inputSeq: 3, ...o }) as TurnOutcome;

test("a turn's task status", () => {
  expect(taskStatusOf({ state: state({ consumedInputSeq: 2 }), outcome: undefined }, ref)).toBe('working');
  expect(taskStatusOf({ state: state({}), outcome: undefined }, ref)).toBe('working');
  expect(taskStatusOf({ state: state({ blockedOn: 'approval' }), outcome: undefined }, ref)).toBe('input_required');
  expect(taskStatusOf({ state: state({ blockedOn: 'unknown_outcome' }), outcome: undefined }, ref)).toBe('input_required');
  // Blocked by an error on this turn: a person can still retry it, so it is not over.
  expect(taskStatusOf({ state: state({ blockedOn: 'error' }), outcome: outcome({ status: 'error' }) }, ref)).toBe('input_required');
  expect(taskStatusOf({ state: state({ consumedInputSeq: 4 }), outcome: outcome({ status: 'error' }) }, ref)).toBe('failed');
  expect(taskStatusOf({ state: state({}), outcome: outcome({ status: 'answered' }) }, ref)).toBe('completed');
  expect(taskStatusOf({ state: state({}), outcome: outcome({ status: 'asked' }) }, ref)).toBe('completed');
  expect(taskStatusOf({ state: state({}), outcome: outcome({ status: 'interrupted' }) }, ref)).toBe('cancelled');
  expect(taskStatusOf({ state: state({}), outcome: outcome({ status: 'stopped' }) }, ref)).toBe('failed');
});

test('the task id a previous attempt left in its heartbeat details', () => {
  expect(taskIdIn({ tool: 'x', mcp_task_id: 't-1', tool_attempts: { started: 1, errors: [] } })).toBe('t-1');
  for (const none of [undefined, null, 'text', { progress: 1 }, { mcp_task_id: '' }, { mcp_task_id: 7 }]) expect(taskIdIn(none)).toBeUndefined();
});
