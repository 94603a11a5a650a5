/**
 * Compatible servers send tool call ids that are empty, or one id for several calls of a message. Each
 * adapter, through its official SDK against the wire fake, still streams deltas the assembler takes (one
 * unique, non-empty id per call, its arguments kept apart), and the next request refers to the calls by
 * those ids. Before, an Anthropic-style "" and an OpenAI-style repeated id failed every attempt of the
 * model call ("Tool call … started twice").
 */
import { anthropicProvider, openaiProvider } from '../../activities/index';
import { AgentState, type ContextMessage, MessageAssembler, type Model, type ToolCallRequest, renderLiveContext } from '../../agent/index';
import { type FakeAnthropicServer, startFakeAnthropicServer } from '../support/fake-anthropic-server';
import { type FakeOpenAIServer, startFakeOpenAIServer } from '../support/fake-openai-server';

const tools = [{ name: 'lookup', description: 'Look up', parameters: { type: 'object', properties: { q: { type: 'string' } } } }];
const invocation = { providerId: 'test', specification: 'test', model: 'm' };
const ask = (): ContextMessage[] => {
  const s = new AgentState(() => 0);
  s.appendModelInput({ sections: [{ title: 'Input', content: 'look up three things' }] });
  return renderLiveContext(s.entries);
};

/** Streams one answer through the assembler (which refuses a repeated id) and builds the message. */
async function assemble(model: Model, messages = ask()) {
  const assembler = new MessageAssembler();
  for await (const d of model.stream(messages, tools, undefined, {})) assembler.consume(d);
  return assembler.buildFinalMessage();
}

/** The context after those calls were answered, as the agent renders it for the next request. */
function answered(calls: ToolCallRequest[]): ContextMessage[] {
  const s = new AgentState(() => 0);
  s.appendModelInput({ sections: [{ title: 'Input', content: 'look up three things' }] });
  s.appendModelOutput({ contents: [], toolCalls: calls, invocation });
  s.appendToolResults({
    results: calls.map((c) => ({ toolName: c.toolName, toolCallId: c.toolCallId, status: 'Success' as const, result: `found ${c.rawArguments}` })),
  });
  return renderLiveContext(s.entries);
}

function expectDistinct(calls: ToolCallRequest[]) {
  expect(calls.map((c) => c.rawArguments)).toEqual(['{"q":"a"}', '{"q":"b"}', '{"q":"c"}']);
  expect(calls.every((c) => c.toolCallId.trim().length > 0)).toBe(true);
  expect(new Set(calls.map((c) => c.toolCallId)).size).toBe(3);
}

describe('OpenAI-compatible: "" and one id for several calls', () => {
  let s: FakeOpenAIServer;
  beforeAll(async () => (s = await startFakeOpenAIServer()));
  afterAll(async () => s?.close());

  test('each call gets an id of its own, and the next request answers each', async () => {
    const model = openaiProvider({ apiKey: s.apiKey, baseURL: `${s.url}/v1` }).create('gpt-4.1-mini');
    s.enqueue({
      kind: 'stream',
      toolCalls: [
        { id: 'call_same', name: 'lookup', arguments: '{"q":"a"}' },
        { id: 'call_same', name: 'lookup', arguments: '{"q":"b"}' },
        { id: '', name: 'lookup', arguments: '{"q":"c"}' },
      ],
    });
    const message = await assemble(model);
    expectDistinct(message.toolCalls);
    expect(message.toolCalls[0].toolCallId).toBe('call_same'); // a usable id is kept

    s.enqueue({ kind: 'stream', text: 'all found' }); // the fake checks that every call is answered
    await expect(assemble(model, answered(message.toolCalls))).resolves.toMatchObject({ contents: ['all found'] });
  });
});

describe('Anthropic-compatible: "" for every call', () => {
  let s: FakeAnthropicServer;
  beforeAll(async () => (s = await startFakeAnthropicServer()));
  afterAll(async () => s?.close());

  test('each call gets an id of its own, and the next request answers each', async () => {
    const model = anthropicProvider({ apiKey: s.apiKey, baseURL: s.url }).create('claude-sonnet-4-6');
    s.enqueue({
      kind: 'stream',
      toolCalls: ['a', 'b', 'c'].map((q) => ({ id: '', name: 'lookup', input: { q }, rawJson: JSON.stringify({ q }) })),
    });
    const message = await assemble(model);
    expectDistinct(message.toolCalls);

    s.enqueue({ kind: 'stream', text: 'all found' });
    await expect(assemble(model, answered(message.toolCalls))).resolves.toMatchObject({ contents: ['all found'] });
    const sent = JSON.stringify(s.requests[s.requests.length - 1].body);
    for (const c of message.toolCalls) expect(sent).toContain(`"tool_use_id":"${c.toolCallId}"`);
  });
});
