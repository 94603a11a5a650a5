/**
 * Seed 004's "decide to wait for input" (a turn_end entry): an interrupt mid tool batch keeps finished
 * results and answers the rest as Skipped; an interrupt before the model answered leaves the input; an
 * ask_user call ends the turn with its question. After each, the next input continues the conversation,
 * the snapshot checks pass, and the next request is valid for both providers' validators.
 */
import { Agent, type ModelCallResult, renderLiveContext, type StepDeps } from '../../agent/index';
import { toOpenAIMessages } from '../../activities/models/openai-messages';
import { toAnthropicRequest } from '../../activities/models/anthropic-messages';
import { validateChatCompletionRequest } from '../support/fake-openai-validate';
import { validateMessagesRequest } from '../support/fake-anthropic-validate';
import { scriptedDeps, FAKE_INVOCATION, tickingClock } from '../support/scripted-deps';

const invocation = FAKE_INVOCATION;
const clock = tickingClock();
const call = (id: string, toolName = 't', args: Record<string, unknown> = {}) => ({
  toolName,
  toolCallId: id,
  rawArguments: JSON.stringify(args),
  arguments: args as never,
});

function deps(outputs: ModelCallResult[]): StepDeps {
  return scriptedDeps(outputs, (c) => ({ toolCallId: c.toolCallId, toolName: c.toolName, status: 'Success', result: `ran ${c.toolCallId}` }));
}

async function run(agent: Agent, d: StepDeps, steps: number) {
  for (let i = 0; i < steps; i++) if ((await agent.doStep(d)) !== 'ProgressMade') return;
}

/** The request the next model call would send, checked by both providers' validators. */
function expectValidRequests(agent: Agent) {
  const messages = renderLiveContext(agent.state.entries);
  const openai = { model: 'gpt-4.1-mini', stream: true, messages: toOpenAIMessages(messages, 'be brief') };
  expect(validateChatCompletionRequest(openai)).toBeNull();
  const anthropic = toAnthropicRequest(messages, 'be brief', [], { providerId: 'anthropic', cache: false });
  expect(() => validateMessagesRequest({ model: 'claude-sonnet-4-6', max_tokens: 100, stream: true, ...anthropic })).not.toThrow();
}

test('an interrupt mid batch keeps the finished result, skips the rest, and the agent waits for input', async () => {
  const agent = Agent.create({ config: { model: 'fake:m' }, clock });
  const d = deps([
    { contents: ['two calls'], toolCalls: [call('a'), call('b')], invocation },
    { contents: ['after the interrupt'], toolCalls: [], invocation },
  ]);
  agent.enqueueInput({ text: 'go' });
  await run(agent, d, 3); // input, model output, the first tool
  expect(agent.pendingToolResults.map((r) => r.toolCallId)).toEqual(['a']);
  expect(agent.interrupt('ana')).toBe(true);
  expect(agent.runState).toBe('WaitingInput');
  const entries = agent.state.entries;
  expect(entries.at(-2)).toMatchObject({
    kind: 'tool_results',
    results: [
      { toolCallId: 'a', status: 'Success' },
      { toolCallId: 'b', status: 'Skipped', result: expect.stringMatching(/Interrupted by ana/) },
    ],
  });
  expect(entries.at(-1)).toMatchObject({ kind: 'turn_end', reason: 'interrupted', by: 'ana' });
  expect(agent.turnOutcome(1)).toEqual({ inputSeq: 1, status: 'interrupted', by: 'ana' });
  expect(await agent.doStep(d)).toBe('BlockedOnInput');
  expect(agent.interrupt()).toBe(false); // nothing runs now

  agent.enqueueInput({ text: 'next' });
  await run(agent, d, 2);
  expect(agent.turnOutcome(2)).toMatchObject({ status: 'answered', answer: { contents: ['after the interrupt'] } });
  expect(() => Agent.fromSnapshot(agent.toSnapshot(), clock)).not.toThrow();
  expectValidRequests(agent);
});

test('an interrupt before the model answered leaves the input; the next one follows it', async () => {
  const agent = Agent.create({ config: { model: 'fake:m' }, clock });
  agent.enqueueInput({ text: 'a long question' });
  await run(agent, deps([]), 1);
  expect(agent.runState).toBe('PendingInput');
  agent.interrupt();
  expect(agent.runState).toBe('WaitingInput');
  agent.enqueueInput({ text: 'never mind, something else' });
  await run(agent, deps([{ contents: ['ok'], toolCalls: [], invocation }]), 3);
  expect(agent.turnOutcome(2)).toMatchObject({ status: 'answered' });
  expect(() => Agent.fromSnapshot(agent.toSnapshot(), clock)).not.toThrow();
  expectValidRequests(agent);
});

/** The person's reply to the questions (input 2) is answered with `answer`, and the next request is valid. */
async function repliedAndAnswered(agent: Agent, d: StepDeps, reply: string, answer: string) {
  agent.enqueueInput({ text: reply });
  await run(agent, d, 10);
  expect(agent.turnOutcome(2)).toMatchObject({ status: 'answered', answer: { contents: [answer] } });
  expectValidRequests(agent);
}

test('ask_user ends the turn with its question; the reply is the next input', async () => {
  const agent = Agent.create({ config: { model: 'fake:m' }, clock });
  const d = deps([
    { contents: [], toolCalls: [call('q', 'ask_user', { question: 'Which city?' })], invocation },
    { contents: ['Booked for Lyon.'], toolCalls: [], invocation },
  ]);
  agent.enqueueInput({ text: 'book a train' });
  await run(agent, d, 10);
  expect(agent.state.entries.at(-1)).toMatchObject({ kind: 'turn_end', reason: 'ask_user', question: 'Which city?' });
  expect(agent.turnOutcome(1)).toEqual({ inputSeq: 1, status: 'asked', question: 'Which city?', waitId: 'question-4' });
  await repliedAndAnswered(agent, d, 'Lyon', 'Booked for Lyon.');
});

test('two ask_user calls in one reply: both questions reach the person, numbered; one reply answers them', async () => {
  const agent = Agent.create({ config: { model: 'fake:m' }, clock });
  const d = deps([
    { contents: [], toolCalls: [call('q1', 'ask_user', { question: 'Which city?' }), call('q2', 'ask_user', { question: 'Which day?' })], invocation },
    { contents: ['Booked for Lyon on Tuesday.'], toolCalls: [], invocation },
  ]);
  agent.enqueueInput({ text: 'book a train' });
  await run(agent, d, 10);
  expect(agent.turnOutcome(1)).toEqual({ inputSeq: 1, status: 'asked', question: '1. Which city?\n2. Which day?', waitId: 'question-4' });
  expect(agent.state.entries.at(-2)).toMatchObject({
    kind: 'tool_results',
    results: [
      { toolCallId: 'q1', status: 'Success' },
      { toolCallId: 'q2', status: 'Success' },
    ],
  });
  await repliedAndAnswered(agent, d, '1. Lyon 2. Tuesday', 'Booked for Lyon on Tuesday.');
});

test('a history recorded before the change keeps its first question only (replay)', async () => {
  const agent = Agent.create({ config: { model: 'fake:m' }, clock });
  const d = {
    ...deps([
      { contents: [], toolCalls: [call('q1', 'ask_user', { question: 'Which city?' }), call('q2', 'ask_user', { question: 'Which day?' })], invocation },
    ]),
    since: (c: string) => c !== 'ask-user-all-questions',
  };
  agent.enqueueInput({ text: 'book a train' });
  await run(agent, d, 10);
  expect(agent.turnOutcome(1)).toEqual({ inputSeq: 1, status: 'asked', question: 'Which city?', waitId: 'question-4' });
});

test('an import refuses a turn_end that leaves tool calls unanswered', () => {
  const agent = Agent.create({ config: { model: 'fake:m' }, clock });
  const snap = agent.toSnapshot();
  const t = '2026-01-01T00:00:00.000Z';
  const bad = {
    ...snap,
    entries: [
      { kind: 'model_input', seq: 1, timestamp: t, sections: [{ title: 'Input', content: 'x' }], inputSeq: 1 },
      { kind: 'model_output', seq: 2, timestamp: t, contents: [], toolCalls: [call('z')], invocation },
      { kind: 'turn_end', seq: 3, timestamp: t, reason: 'interrupted' },
    ],
    nextSeq: 4,
    nextInputSeq: 2,
    consumedInputSeq: 1,
  };
  expect(() => Agent.fromSnapshot(bad, clock)).toThrow(/turn end #3 leaves tool calls/);
});
