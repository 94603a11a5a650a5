/**
 * Issue 26 item 4: a model call this worker cannot make for want of an API key goes to the provider's
 * task queue when the agent can route it and a worker polls there; otherwise it is handed back to the
 * agents' queue (retryable, short delays) while another worker polls it and attempts remain; on the last
 * attempt, or alone on the queue, it blocks the agent with a message that says what is missing.
 */
import { ActivityFailure, ApplicationFailure, RetryState } from '@temporalio/common';
import { isRoutable, providerOf, providerTaskQueue } from '../../workflows/model-routing';
import { ModelRouter, openaiProvider } from '../../activities/index';
import { resolveOrPassOn } from '../../activities/models/missing-provider';

const keyless = new ModelRouter([openaiProvider({ apiKey: '', baseURL: '' })]);
const now = Date.now();
const failureOf = (p: Promise<unknown>) =>
  p.then(
    () => undefined,
    (err: unknown) => err as ApplicationFailure,
  );

test('with another worker on the queue, a missing key is handed back, retryable, with a short delay', async () => {
  let asked = 0;
  const err = await failureOf(
    resolveOrPassOn(keyless, 'openai:gpt-4.1-mini', { attempt: 1, maximumAttempts: 6, firstScheduledMs: now }, async () => (asked++, true)),
  );
  expect(asked).toBe(1);
  expect(err).toBeInstanceOf(ApplicationFailure);
  expect(err).toMatchObject({
    type: 'ModelError.MissingApiKey',
    nonRetryable: false,
    nextRetryDelay: 500,
    message: expect.stringContaining("OPENAI_API_KEY is not set in this worker's environment"),
  });
  expect(err!.message).toContain('(attempt 1; another worker on the task queue may have it)');
});

test('on the last attempt the agent blocks, saying no worker of the queue could make the call', async () => {
  const err = await failureOf(
    resolveOrPassOn(keyless, 'openai:gpt-4.1-mini', { attempt: 6, maximumAttempts: 6, firstScheduledMs: now - 12_000 }, async () => true),
  );
  expect(err).toMatchObject({
    type: 'ModelError.MissingApiKey',
    nonRetryable: true,
    message: expect.stringMatching(
      /No worker on this task queue could make the call in 6 attempts over 1\d s: give every worker of a task queue the same API keys, then `retry`\.$/,
    ),
  });
});

test('alone on the queue, the missing key blocks the agent at once, as before', async () => {
  const err = await failureOf(resolveOrPassOn(keyless, 'openai:gpt-4.1-mini', { attempt: 1, maximumAttempts: 6, firstScheduledMs: now }, async () => false));
  expect(err).toMatchObject({ type: 'ModelError.MissingApiKey', nonRetryable: true });
  expect(err!.message).not.toContain('another worker');
});

test('a provider with its key resolves; other failures are not handed around', async () => {
  const withKey = new ModelRouter([openaiProvider({ apiKey: 'sk-test' })]);
  await expect(resolveOrPassOn(withKey, 'openai:gpt-4.1-mini', { attempt: 1, firstScheduledMs: now }, async () => true)).resolves.toBeDefined();
  // An unknown provider may be registered on another worker: handed back too.
  expect(await failureOf(resolveOrPassOn(withKey, 'nope:model', { attempt: 1, firstScheduledMs: now }, async () => true))).toMatchObject({
    type: 'UNKNOWN_PROVIDER',
    nonRetryable: false,
  });
});

test("when the agent can route the call and a worker polls the provider's queue, the failure names that queue, once", async () => {
  let othersAsked = 0;
  const err = await failureOf(
    resolveOrPassOn(
      keyless,
      'openai:gpt-4.1-mini',
      { attempt: 1, maximumAttempts: 6, firstScheduledMs: now },
      async () => (othersAsked++, true),
      async () => 'agents@openai',
    ),
  );
  expect(err).toMatchObject({ type: 'ModelError.MissingApiKey', nonRetryable: true, details: [{ providerQueue: 'agents@openai' }] });
  expect(err!.message).toContain("OPENAI_API_KEY is not set in this worker's environment");
  expect(othersAsked).toBe(0); // no hand-back to the agents' queue, where any worker may take it
  expect(isRoutable(new ActivityFailure('callModel failed', 'callModel', '1', RetryState.NON_RETRYABLE_FAILURE, undefined, err))).toBe(true);
});

test("with no worker on the provider's queue (or the question failing), the call is handed back to the agents' queue as before", async () => {
  for (const routedQueue of [async () => undefined, async () => Promise.reject(new Error('unavailable'))]) {
    const err = await failureOf(
      resolveOrPassOn(keyless, 'openai:gpt-4.1-mini', { attempt: 1, maximumAttempts: 6, firstScheduledMs: now }, async () => true, routedQueue),
    );
    expect(err).toMatchObject({ type: 'ModelError.MissingApiKey', nonRetryable: false, nextRetryDelay: 500 });
    expect(isRoutable(new ActivityFailure('callModel failed', 'callModel', '1', RetryState.NON_RETRYABLE_FAILURE, undefined, err))).toBe(false);
  }
});

test("a provider's queue is named after the agents' queue and the provider part of the model", () => {
  expect(providerTaskQueue('livecontext-agents', providerOf('openai:gpt-4.1-mini'))).toBe('livecontext-agents@openai');
  expect(providerOf('azure:my-deployment:v2')).toBe('azure');
});
