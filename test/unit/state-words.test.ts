/**
 * The one vocabulary of run states (client/state-view.ts) that the CLI, the gateway's REST answers and
 * event stream, the MCP tools and the web page all show: the word and what goes with it, from the state
 * query and from a listed agent's search attribute, and the same word from both for each rest state.
 */
import { listedRunStateWord, runStateWord, stateDetail, stateWords, withStateWords } from '../../client/state-view';
import { agentStateView } from '../../gateway/events/agent-state-view';
import { restLabel } from '../../agent/run-state';
import { agentStatus } from '../fixtures/agent-status';

const status = agentStatus;

const approval = status({
  runState: 'WaitingToolResults',
  blockedOn: 'approval',
  awaitingApproval: [{ toolCallId: 'c1', toolName: 'delete_file', arguments: '{}', reason: 'destructive', requestedAt: '2026-01-01T00:00:00Z' }],
});
const error = (code: string) =>
  status({
    runState: 'PendingToolResults',
    blockedOn: 'error',
    lastError: { code, message: 'no', runState: 'PendingToolResults', at: '2026-01-01T00:00:00Z' },
  });

test('the word and its detail, for each thing an agent can be doing', () => {
  expect(stateWords(status())).toEqual({ stateWord: 'waiting for input', stateDetail: null });
  expect(stateWords(status({ blockedOn: null, runState: 'PendingInput' }))).toEqual({ stateWord: 'working', stateDetail: 'calling the model' });
  expect(stateWords(status({ blockedOn: null, runState: 'WaitingToolResults' }))).toEqual({ stateWord: 'working', stateDetail: 'running tools' });
  expect(stateWords(approval)).toEqual({ stateWord: 'waiting for approval', stateDetail: 'delete_file' });
  expect(stateWords(error('ModelError.Authentication'))).toEqual({ stateWord: 'blocked by an error', stateDetail: 'ModelError.Authentication' });
  // A budget stop is an error that blocks the agent: the same word, the budget as its detail.
  expect(stateWords(error('Budget.TurnModelCalls'))).toEqual({ stateWord: 'blocked by an error', stateDetail: 'its budget of model calls per turn' });
  expect(stateWords(status({ stopping: true, blockedOn: 'error' }))).toEqual({ stateWord: 'stopping', stateDetail: null });
  expect(stateDetail(status({ blockedOn: null, runState: 'WaitingToolResults', stopping: true }))).toBeUndefined();
});

test('a listed agent reads as its state says, never the state machine names', () => {
  // What the workflow writes at each rest (restLabel) reads as the state query's word for that rest.
  expect(listedRunStateWord(restLabel('BlockedOnApproval'), 'RUNNING')).toBe(runStateWord(approval));
  expect(listedRunStateWord(restLabel('BlockedOnError'), 'RUNNING')).toBe(runStateWord(error('Budget.TurnModelCalls')));
  expect(listedRunStateWord(restLabel('BlockedOnInput'), 'RUNNING')).toBe(runStateWord(status()));
  expect(listedRunStateWord(restLabel('Working'), 'RUNNING')).toBe(runStateWord(status({ blockedOn: null, runState: 'PendingInput' })));
  expect(listedRunStateWord('WaitingInput', 'COMPLETED')).toBe('stopped');
  expect(listedRunStateWord('Working', 'TERMINATED')).toBe('ended: terminated');
  for (const word of ['waiting for input', 'working', 'waiting for approval', 'blocked by an error', 'stopped']) expect(word).not.toMatch(/[A-Z]/);
});

test('the REST answer and the event stream state carry the same words as the CLI', () => {
  for (const s of [status(), approval, error('Budget.DayCost'), status({ blockedOn: null, runState: 'PendingToolResults' })]) {
    const rest = withStateWords(s);
    const view = agentStateView(s, 'a');
    expect(rest.stateWord).toBe(runStateWord(s));
    expect(view.stateWord).toBe(rest.stateWord);
    expect(view.stateDetail).toBe(rest.stateDetail);
    expect(rest.runState).toBe(s.runState); // the raw fields stay, beside the words
  }
});
