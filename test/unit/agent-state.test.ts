import { AgentState, HistoryValidationError, METADATA_MAX_BYTES } from '../../agent/index';

const invocation = { providerId: 'scripted', specification: 'scripted', model: 'm' };
const fixedClock = () => Date.UTC(2026, 0, 1);

function withCalls(state: AgentState, ids: string[]) {
  state.appendModelInput({ sections: [{ title: 'Input', content: 'hi' }] });
  return state.appendModelOutput({
    contents: [],
    toolCalls: ids.map((id) => ({ toolName: 't', toolCallId: id, rawArguments: '{}', arguments: {} })),
    invocation,
  });
}

describe('AgentState semantic appends', () => {
  test('entries get increasing sequence numbers and the injected timestamp', () => {
    const state = new AgentState(fixedClock);
    const a = state.appendModelInput({ sections: [{ title: 'Input', content: 'hi' }] });
    const b = state.appendModelOutput({ contents: ['hello'], toolCalls: [], invocation });
    expect([a.seq, b.seq]).toEqual([1, 2]);
    expect(a.timestamp).toBe('2026-01-01T00:00:00.000Z');
    expect(state.lastSeq).toBe(2);
    expect(state.entries).toHaveLength(2);
  });

  test('empty or blank input is rejected', () => {
    const state = new AgentState(fixedClock);
    expect(() => state.appendModelInput({ sections: [] })).toThrow(HistoryValidationError);
    expect(() => state.appendModelInput({ sections: [{ title: 'Input', content: '  ' }] })).toThrow(/blank/);
    expect(state.entries).toHaveLength(0);
  });

  test('an output must carry content or tool calls, and its invocation descriptor', () => {
    const state = new AgentState(fixedClock);
    expect(() => state.appendModelOutput({ contents: [], toolCalls: [], invocation })).toThrow(/content or tool calls/);
    expect(() => state.appendModelOutput({ contents: ['x'], toolCalls: [], invocation: { providerId: '', specification: 's', model: 'm' } })).toThrow(
      /ModelInvocationDescriptor/,
    );
  });

  test('tool results align one-to-one and in order with the preceding calls by ToolCallId', () => {
    const state = new AgentState(fixedClock);
    withCalls(state, ['c1', 'c2']);
    const r = (id: string) => ({ toolName: 't', toolCallId: id, status: 'Success' as const, result: 'ok' });
    expect(() => state.appendToolResults({ results: [r('c1')] })).toThrow(/Expected 2 tool results/);
    expect(() => state.appendToolResults({ results: [r('c2'), r('c1')] })).toThrow(/answers c2, but call 0 is c1/);
    expect(state.appendToolResults({ results: [r('c1'), r('c2')] }).seq).toBe(3);
  });

  test('tool results need a preceding output with calls', () => {
    const state = new AgentState(fixedClock);
    expect(() => state.appendToolResults({ results: [] })).toThrow(/must follow a model output/);
  });

  test('system instruction entries are not contextual', () => {
    const state = new AgentState(fixedClock);
    state.appendModelInput({ sections: [{ title: 'Input', content: 'hi' }] });
    state.setSystemInstruction('be brief');
    expect(state.lastContextual()?.kind).toBe('model_input');
    expect(state.systemInstruction).toBe('be brief');
  });

  test('metadata: snake_case keys, at most 2 KB', () => {
    const state = new AgentState(fixedClock);
    expect(() => state.appendModelInput({ sections: [{ title: 'I', content: 'x' }], metadata: { camelCase: 1 } })).toThrow(/snake_case/);
    expect(() => state.appendModelInput({ sections: [{ title: 'I', content: 'x' }], metadata: { big: 'x'.repeat(METADATA_MAX_BYTES) } })).toThrow(
      /limit is 2048/,
    );
    expect(state.appendModelInput({ sections: [{ title: 'I', content: 'x' }], metadata: { source_id: 'a' } }).metadata).toEqual({ source_id: 'a' });
  });
});
