import { DeltaSequencer, MessageAssembler, type MessageDelta, StreamProtocolError, type UnnumberedDelta } from '../../agent/index';

const at = '2025-01-01T00:00:00.000Z';
const feed = (a: MessageAssembler, deltas: UnnumberedDelta[]) => deltas.forEach((d, i) => a.consume({ ...d, seq: i + 1, timestamp: at } as MessageDelta));

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
      { kind: 'usage', usage: { inputTokens: 3, outputTokens: 4, totalTokens: 7 } },
    ]);
    expect(a.snapshot().contents).toEqual(['Hello']);
    expect(() => a.buildFinalMessage()).toThrow(/without a "done"/);
    a.consume({ kind: 'done', finishReason: 'tool_calls', seq: 10, timestamp: at });
    expect(a.buildFinalMessage()).toEqual({
      contents: ['Hello'],
      thinking: 'hm',
      toolCalls: [{ toolCallId: 'c', toolName: 't', rawArguments: '{"a":1}', arguments: { a: 1 } }],
      usage: { inputTokens: 3, outputTokens: 4, totalTokens: 7 },
      finishReason: 'tool_calls',
    });
  });

  test('usage is cumulative: a later usage delta replaces the earlier one', () => {
    const a = new MessageAssembler();
    feed(a, [
      { kind: 'start', modelId: 'm' },
      { kind: 'usage', usage: { inputTokens: 10, outputTokens: 1, totalTokens: 11 } },
      { kind: 'text', text: 'x' },
      { kind: 'usage', usage: { inputTokens: 10, outputTokens: 5, totalTokens: 15, cachedInputTokens: 8 } },
      { kind: 'done', finishReason: 'stop' },
    ]);
    expect(a.buildFinalMessage().usage).toEqual({ inputTokens: 10, outputTokens: 5, totalTokens: 15, cachedInputTokens: 8 });
  });

  test('provider events on deltas are not assembled into the message', () => {
    const a = new MessageAssembler();
    const raw = [{ id: 'chatcmpl-1', choices: [{ delta: { content: 'hi' } }], secret_provider_field: 'x' }];
    a.consume({ kind: 'start', modelId: 'm', seq: 1, timestamp: at });
    a.consume({ kind: 'text', text: 'hi', seq: 2, timestamp: at, providerRaw: raw });
    a.consume({ kind: 'done', finishReason: 'stop', seq: 3, timestamp: at, providerRaw: [{ finish_reason: 'stop' }] });
    const message = a.buildFinalMessage();
    expect(message).toEqual({ contents: ['hi'], toolCalls: [], finishReason: 'stop' });
    expect(JSON.stringify(message)).not.toContain('chatcmpl-1');
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
    [
      'one terminal only',
      [
        { kind: 'start', modelId: 'm' },
        { kind: 'done', finishReason: 'stop' },
        { kind: 'done', finishReason: 'stop' },
      ],
      /after the stream ended/,
    ],
    [
      'tool call end needs a start',
      [
        { kind: 'start', modelId: 'm' },
        { kind: 'tool_call_end', toolCallId: 'z' },
      ],
      /before its start/,
    ],
    [
      'tool calls must end before done',
      [
        { kind: 'start', modelId: 'm' },
        { kind: 'tool_call_start', toolCallId: 'z', toolName: 't' },
        { kind: 'done', finishReason: 'stop' },
      ],
      /never ended/,
    ],
  ] as const)('%s', (_n, deltas, message) => {
    const a = new MessageAssembler();
    expect(() => feed(a, deltas as never)).toThrow(message);
  });

  test('seq must strictly increase', () => {
    const a = new MessageAssembler();
    a.consume({ kind: 'start', modelId: 'm', seq: 2, timestamp: at });
    expect(() => a.consume({ kind: 'text', text: 'x', seq: 2, timestamp: at })).toThrow(StreamProtocolError);
  });

  test('an error delta ends the stream; no final message', () => {
    const a = new MessageAssembler();
    feed(a, [
      { kind: 'start', modelId: 'm' },
      { kind: 'error', code: 'RATE_LIMIT', message: 'slow down', retryable: true },
    ]);
    expect(a.status).toBe('error');
    expect(a.getError()).toEqual({ code: 'RATE_LIMIT', message: 'slow down', retryable: true });
    expect(() => a.buildFinalMessage()).toThrow(/slow down/);
  });
});

describe('DeltaSequencer (seed 002 MessageDelta fields)', () => {
  test('numbers deltas from 1 and stamps each with an ISO-8601 time', () => {
    const d = new DeltaSequencer();
    const before = Date.now();
    const deltas = [d.next({ kind: 'start', modelId: 'm' }), d.next({ kind: 'text', text: 'a' }), d.next({ kind: 'done', finishReason: 'stop' })];
    expect(deltas.map((x) => x.seq)).toEqual([1, 2, 3]);
    for (const x of deltas) {
      expect(x.timestamp).toMatch(/^\d{4}-\d\d-\d\dT\d\d:\d\d:\d\d\.\d{3}Z$/);
      expect(Date.parse(x.timestamp)).toBeGreaterThanOrEqual(before - 1);
      expect(Date.parse(x.timestamp)).toBeLessThanOrEqual(Date.now());
    }
  });

  test('without providerRaw asked, provider events are dropped', () => {
    const d = new DeltaSequencer();
    d.observe({ type: 'message_start' });
    const start = d.next({ kind: 'start', modelId: 'm' });
    expect(start).not.toHaveProperty('providerRaw');
  });

  test('with providerRaw asked, every event rides on exactly one delta, in order', () => {
    const d = new DeltaSequencer({ providerRaw: true });
    const events = [{ n: 1 }, { n: 2 }, { n: 3 }, { n: 4 }];
    const out: MessageDelta[] = [];
    d.observe(events[0]);
    out.push(d.next({ kind: 'start', modelId: 'm' }));
    out.push(d.next({ kind: 'text', text: 'a' })); // a second delta from the same event carries nothing
    d.observe(events[1]); // an event that makes no delta of its own (a ping)
    d.observe(events[2]);
    out.push(d.next({ kind: 'text', text: 'b' }));
    d.observe(events[3]);
    out.push(d.next({ kind: 'done', finishReason: 'stop' }));
    expect(out.map((x) => x.providerRaw)).toEqual([[events[0]], undefined, [events[1], events[2]], [events[3]]]);
    expect(out.flatMap((x) => x.providerRaw ?? [])).toEqual(events);
  });
});
