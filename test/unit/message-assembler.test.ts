import { MessageAssembler, type MessageDelta, StreamProtocolError, type UnnumberedDelta } from '../../agent';

const feed = (a: MessageAssembler, deltas: UnnumberedDelta[]) =>
  deltas.forEach((d, i) => a.consume({ ...d, seq: i + 1 } as MessageDelta));

describe('MessageAssembler (seed 002)', () => {
  test('assembles text, thinking and tool calls from fragments', () => {
    const a = new MessageAssembler();
    feed(a, [
      { kind: 'start', modelId: 'm' },
      { kind: 'thinking', text: 'hm' },
      { kind: 'text', text: 'Hel' },
      { kind: 'text', text: 'lo' },
      { kind: 'tool_call_start', toolCallId: 'c', toolName: 't' },
      { kind: 'tool_call_args', toolCallId: 'c', argsTextDelta: '{"a":' },
      { kind: 'tool_call_args', toolCallId: 'c', argsTextDelta: '1}' },
      { kind: 'tool_call_end', toolCallId: 'c' },
      { kind: 'usage', usage: { inputTokens: 3, outputTokens: 4 } },
    ]);
    expect(a.snapshot().contents).toEqual(['Hello']);
    expect(() => a.buildFinalMessage()).toThrow(/without a "done"/);
    a.consume({ kind: 'done', finishReason: 'tool_calls', seq: 10 });
    expect(a.buildFinalMessage()).toEqual({
      contents: ['Hello'],
      thinking: 'hm',
      toolCalls: [{ toolCallId: 'c', toolName: 't', rawArguments: '{"a":1}', arguments: { a: 1 } }],
      usage: { inputTokens: 3, outputTokens: 4 },
      finishReason: 'tool_calls',
    });
  });

  test('arguments that do not parse become a ParseError on the call, raw text kept', () => {
    const a = new MessageAssembler();
    feed(a, [
      { kind: 'start', modelId: 'm' },
      { kind: 'tool_call_start', toolCallId: 'c', toolName: 't' },
      { kind: 'tool_call_args', toolCallId: 'c', argsTextDelta: '{"a": tru' },
      { kind: 'tool_call_end', toolCallId: 'c' },
      { kind: 'done', finishReason: 'tool_calls' },
    ]);
    const [call] = a.buildFinalMessage().toolCalls;
    expect(call.rawArguments).toBe('{"a": tru');
    expect(call.arguments).toBeUndefined();
    expect(call.parseError).toMatch(/not valid JSON/);
  });

  test.each([
    ['start must come first', [{ kind: 'text', text: 'x' }], /first delta must be "start"/],
    ['one terminal only', [{ kind: 'start', modelId: 'm' }, { kind: 'done', finishReason: 'stop' }, { kind: 'done', finishReason: 'stop' }], /after the stream ended/],
    ['tool call end needs a start', [{ kind: 'start', modelId: 'm' }, { kind: 'tool_call_end', toolCallId: 'z' }], /before its start/],
    ['tool calls must end before done', [{ kind: 'start', modelId: 'm' }, { kind: 'tool_call_start', toolCallId: 'z', toolName: 't' }, { kind: 'done', finishReason: 'stop' }], /never ended/],
  ] as const)('%s', (_n, deltas, message) => {
    const a = new MessageAssembler();
    expect(() => feed(a, deltas as never)).toThrow(message);
  });

  test('seq must strictly increase', () => {
    const a = new MessageAssembler();
    a.consume({ kind: 'start', modelId: 'm', seq: 2 });
    expect(() => a.consume({ kind: 'text', text: 'x', seq: 2 })).toThrow(StreamProtocolError);
  });

  test('an error delta ends the stream; no final message', () => {
    const a = new MessageAssembler();
    feed(a, [{ kind: 'start', modelId: 'm' }, { kind: 'error', code: 'RATE_LIMIT', message: 'slow down', retryable: true }]);
    expect(a.status).toBe('error');
    expect(a.getError()).toEqual({ code: 'RATE_LIMIT', message: 'slow down', retryable: true });
    expect(() => a.buildFinalMessage()).toThrow(/slow down/);
  });
});
