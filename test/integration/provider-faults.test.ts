/**
 * Provider faults through the official SDKs, each leaving a correct history and a live agent: 429
 * with retry-after, 500, Anthropic 529, a connection cut mid-stream, a stream closed cleanly before its
 * finish, an error event mid-stream, a first token that never comes; and 401, which is not retried:
 * recorded, visible, and the agent continues after a fix.
 */
import { ModelError } from '../../activities/index';
import type { ModelOutputEntry } from '../../agent/index';
import type { FakeAnthropicResponse } from '../support/fake-anthropic-server';
import type { FakeOpenAIResponse } from '../support/fake-openai-server';
import { useProviderServers } from '../support/provider-servers';
import { eventually, uniqueId, withWorker } from '../support/temporal';

const { t, p, taskQueue } = useProviderServers('faults');

const liveness = { firstTokenTimeoutMs: 1500, stallTimeoutMs: 1500 };

async function answersAfterFault(model: string, enqueue: (answer: string) => void, answer: string) {
  const agentId = uniqueId('fault');
  enqueue(answer);
  await t.agents.start(agentId, { model });
  const outcome = await t.agents.ask(agentId, 'hello');
  expect(outcome).toMatchObject({ status: 'answered', answer: { contents: [answer] } });
  const history = await t.agents.history(agentId);
  expect(history.map((e) => e.kind)).toEqual(['model_input', 'model_output']); // the failed attempt left nothing behind
  expect((await t.agents.state(agentId)).lastError).toBeNull();
  return history[1] as ModelOutputEntry;
}

/** The OpenAI fake fails once with `fault`, then streams `answer`: the agent answers with it alone. */
const afterOpenAIFault = (fault: FakeOpenAIResponse, answer: string) =>
  answersAfterFault('openai:gpt-4.1-mini', (ans) => p.openai.enqueue(fault, { kind: 'stream', text: ans }), answer);
/** The same through the Anthropic fake. */
const afterAnthropicFault = (fault: FakeAnthropicResponse, answer: string) =>
  answersAfterFault('anthropic:claude-sonnet-4-6', (ans) => p.anthropic.enqueue(fault, { kind: 'stream', text: ans }), answer);

test('retryable faults are retried by Temporal and leave exactly one answer', async () => {
  await withWorker({ taskQueue, models: p.models(), liveness }, async () => {
    let before = Date.now();
    await afterOpenAIFault({ kind: 'error', status: 429, headers: { 'retry-after': '2' } }, 'after 429');
    expect(Date.now() - before).toBeGreaterThanOrEqual(1900); // retry-after honoured (the default first retry is 1 s)
    await afterOpenAIFault({ kind: 'error', status: 500 }, 'after 500');
    await afterAnthropicFault({ kind: 'error', status: 529 }, 'after 529');
    await afterOpenAIFault({ kind: 'cut', afterChunks: 2, text: 'partial text that is lost' }, 'after openai cut');
    await afterAnthropicFault({ kind: 'cut', afterEvents: 3, text: 'partial text that is lost' }, 'after anthropic cut');
    await afterOpenAIFault({ kind: 'truncated', text: 'looks complete but is not' }, 'after openai truncation');
    await afterAnthropicFault({ kind: 'truncated', text: 'looks complete but is not' }, 'after anthropic truncation');
    await afterOpenAIFault({ kind: 'error_event', afterChunks: 2, text: 'some words here' }, 'after openai error event');
    await afterAnthropicFault({ kind: 'error_event', afterEvents: 3, text: 'some words here' }, 'after anthropic error event');
    before = Date.now();
    await afterOpenAIFault({ kind: 'hang' }, 'after a first token that never came');
    expect(Date.now() - before).toBeGreaterThanOrEqual(1400);
    // A stream that starts and then stalls longer than the stall timeout.
    await afterAnthropicFault({ kind: 'stream', text: 'slow slow slow', chunkDelayMs: 2500 }, 'after a stall');
  });
});

test('401 is not retried: the error is recorded and visible, the agent waits, and continues after a fix', async () => {
  await withWorker({ taskQueue, models: p.models(), liveness }, async () => {
    const agentId = uniqueId('auth');
    const requestsBefore = p.openai.requests.length;
    p.openai.enqueue({ kind: 'error', status: 401 });
    await t.agents.start(agentId, { model: 'openai:gpt-4.1-mini' });
    const outcome = await t.agents.ask(agentId, 'hello');
    expect(outcome).toMatchObject({ status: 'error', error: { code: ModelError.Authentication, runState: 'PendingInput' } });
    expect(p.openai.requests.length - requestsBefore).toBe(1); // not retried
    const state = await t.agents.state(agentId);
    expect(state).toMatchObject({ runState: 'PendingInput', blockedOn: 'error', lastError: { code: ModelError.Authentication } });
    expect((await t.agents.handle(agentId).describe()).status.name).toBe('RUNNING');

    // Input keeps arriving while it is blocked; nothing is lost.
    await t.agents.signal(agentId, 'are you there?');
    // The fix: another model by configuration (an operator could also fix the key and send `retry`).
    p.anthropic.enqueue({ kind: 'stream', text: 'hello from anthropic' }, { kind: 'stream', text: 'yes, still here' });
    await t.agents.configure(agentId, { model: 'anthropic:claude-sonnet-4-6' });
    await expect(t.agents.waitForAnswer(agentId, 1)).resolves.toMatchObject({ status: 'answered', answer: { contents: ['hello from anthropic'] } });
    await expect(t.agents.waitForAnswer(agentId, 2)).resolves.toMatchObject({ status: 'answered', answer: { contents: ['yes, still here'] } });

    // The retry path: another 401, then `retry` once the provider accepts again.
    p.anthropic.enqueue({ kind: 'error', status: 401 }, { kind: 'stream', text: 'after retry' });
    const { inputSeq } = await t.agents.send(agentId, 'third');
    await expect(t.agents.waitForAnswer(agentId, inputSeq)).resolves.toMatchObject({ status: 'error' });
    await t.agents.retry(agentId);
    await eventually(async () => (await t.agents.state(agentId)).blockedOn === 'input', 20_000, 'the agent to answer after retry');
    const history = await t.agents.history(agentId);
    expect(history.filter((e) => e.kind === 'model_output').map((e) => e.kind === 'model_output' && e.contents[0])).toEqual([
      'hello from anthropic',
      'yes, still here',
      'after retry',
    ]);
  });
});
