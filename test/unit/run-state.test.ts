import { AgentRunState, type ContextualEntry, determineState } from '../../agent/index';

const base = { seq: 1, timestamp: 't' };
const invocation = { providerId: 'p', specification: 's', model: 'm' };
const input: ContextualEntry = { ...base, kind: 'model_input', sections: [{ title: 'I', content: 'x' }] };
const answer: ContextualEntry = { ...base, kind: 'model_output', contents: ['a'], toolCalls: [], invocation };
const call = (id: string) => ({ toolName: 't', toolCallId: id, rawArguments: '{}' });
const withCalls: ContextualEntry = { ...base, kind: 'model_output', contents: [], toolCalls: [call('1'), call('2')], invocation };
const results: ContextualEntry = { ...base, kind: 'tool_results', results: [] };
const result = (id: string) => ({ toolName: 't', toolCallId: id, status: 'Success' as const, result: '' });

describe('determineState (seed 004)', () => {
  test.each([
    ['empty history', undefined, [], AgentRunState.WaitingInput],
    ['last output without tool calls', answer, [], AgentRunState.WaitingInput],
    ['last entry is a model input', input, [], AgentRunState.PendingInput],
    ['calls without results', withCalls, [], AgentRunState.WaitingToolResults],
    ['fewer results than calls', withCalls, [result('1')], AgentRunState.WaitingToolResults],
    ['every call has a result', withCalls, [result('2'), result('1')], AgentRunState.ToolResultsReady],
    ['results matched by id, not count', withCalls, [result('1'), result('x')], AgentRunState.WaitingToolResults],
    ['last entry is tool results', results, [], AgentRunState.PendingToolResults],
  ] as const)('%s', (_name, last, pending, expected) => {
    expect(determineState(last, [...pending])).toBe(expected);
  });
});
