/** The adapters' pure translations of context messages into each provider's request shape. */
import { AgentState, renderLiveContext } from '../../agent/index';
import { toAnthropicRequest } from '../../activities/models/anthropic-messages';
import { toOpenAIMessages } from '../../activities/models/openai-messages';

const anthropic = { providerId: 'anthropic', specification: 'anthropic-messages', model: 'claude' };
const openai = { providerId: 'openai', specification: 'openai-chat-completions', model: 'gpt' };

function session() {
  const s = new AgentState(() => 0);
  s.appendModelInput({
    sections: [
      { title: 'Task', content: 'do it' },
      { title: 'Notes', content: 'carefully' },
    ],
  });
  s.appendModelOutput({
    contents: ['On it.'],
    thinking: 'plan',
    thinkingSignature: 'sig-1',
    toolCalls: [
      { toolName: 'a', toolCallId: 'toolu_1', rawArguments: '{"x":1}', arguments: { x: 1 } },
      { toolName: 'b', toolCallId: 'toolu_2', rawArguments: '{bad', parseError: 'not JSON' },
    ],
    invocation: anthropic,
  });
  s.appendToolResults({
    results: [
      { toolName: 'a', toolCallId: 'toolu_1', status: 'Success', result: 'ok' },
      { toolName: 'b', toolCallId: 'toolu_2', status: 'Failed', result: 'arguments are not JSON' },
    ],
  });
  return s;
}

test('OpenAI: headed sections, one tool message per call, LiveScreen in the carrier, no thinking', () => {
  const msgs = toOpenAIMessages(renderLiveContext(session().entries, { liveScreen: '# [Live Screen]' }), 'sys');
  expect(msgs).toEqual([
    { role: 'system', content: 'sys' },
    { role: 'user', content: '## Task\n\ndo it\n\n## Notes\n\ncarefully' },
    {
      role: 'assistant',
      content: 'On it.',
      tool_calls: [
        { id: 'toolu_1', type: 'function', function: { name: 'a', arguments: '{"x":1}' } },
        { id: 'toolu_2', type: 'function', function: { name: 'b', arguments: '{bad' } },
      ],
    },
    { role: 'tool', tool_call_id: 'toolu_1', content: 'ok' },
    { role: 'tool', tool_call_id: 'toolu_2', content: 'Error: arguments are not JSON\n\n# [Live Screen]' },
  ]);
});

test('Anthropic: top-level system, tool results in one user message first, thinking kept with signature for Anthropic only', () => {
  const s = session();
  const req = toAnthropicRequest(renderLiveContext(s.entries, { liveScreen: '# [Live Screen]' }), 'sys', [], { providerId: 'anthropic', cache: false });
  expect(req.system).toEqual([{ type: 'text', text: 'sys' }]);
  expect(req.messages).toEqual([
    { role: 'user', content: [{ type: 'text', text: '## Task\n\ndo it\n\n## Notes\n\ncarefully' }] },
    {
      role: 'assistant',
      content: [
        { type: 'thinking', thinking: 'plan', signature: 'sig-1' },
        { type: 'text', text: 'On it.' },
        { type: 'tool_use', id: 'toolu_1', name: 'a', input: { x: 1 } },
        { type: 'tool_use', id: 'toolu_2', name: 'b', input: {} },
      ],
    },
    {
      role: 'user',
      content: [
        { type: 'tool_result', tool_use_id: 'toolu_1', content: 'ok' },
        { type: 'tool_result', tool_use_id: 'toolu_2', content: 'Error: arguments are not JSON', is_error: true },
        { type: 'text', text: '# [Live Screen]' },
      ],
    },
  ]);
  // Produced by another provider: the thinking is dropped.
  const other = new AgentState(() => 0);
  other.appendModelInput({ sections: [{ title: 'Input', content: 'hi' }] });
  other.appendModelOutput({ contents: ['yo'], thinking: 't', thinkingSignature: 's', toolCalls: [], invocation: openai });
  other.appendModelInput({ sections: [{ title: 'Input', content: 'again' }] });
  const r2 = toAnthropicRequest(renderLiveContext(other.entries), undefined, [], { providerId: 'anthropic', cache: false });
  expect(r2.messages[1]).toEqual({ role: 'assistant', content: [{ type: 'text', text: 'yo' }] });
  expect(r2.system).toBeUndefined();
});

test('Anthropic: automatic cache breakpoints on tools, system, the previous user turn and the newest message (max 4)', () => {
  const s = session();
  s.appendModelOutput({ contents: ['done'], toolCalls: [], invocation: anthropic });
  s.appendModelInput({ sections: [{ title: 'Input', content: 'next' }] });
  const tools = [
    { name: 't1', description: 'd', parameters: { type: 'object' } },
    { name: 't2', description: 'd', parameters: { type: 'object' } },
  ];
  const req = toAnthropicRequest(renderLiveContext(s.entries), 'sys', tools, { providerId: 'anthropic', cache: true });
  const marked = JSON.stringify(req).match(/cache_control/g) ?? [];
  expect(marked).toHaveLength(4);
  expect(req.tools![1].cache_control).toEqual({ type: 'ephemeral' });
  expect(req.tools![0].cache_control).toBeUndefined();
  expect(req.system![0].cache_control).toEqual({ type: 'ephemeral' });
  const last = req.messages[req.messages.length - 1].content as Array<{ cache_control?: unknown }>;
  expect(last[last.length - 1].cache_control).toEqual({ type: 'ephemeral' });
});

test('unknown message kinds are ignored safely by both adapters', () => {
  const weird = [{ kind: 'future_kind', payload: 1 }] as never;
  expect(toOpenAIMessages(weird, undefined)).toEqual([]);
  expect(toAnthropicRequest(weird, undefined, [], { providerId: 'anthropic', cache: false }).messages).toEqual([]);
});
