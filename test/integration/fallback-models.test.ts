/**
 * Fallback models on the real dev server, through both official SDKs and the wire fakes: the first
 * model's provider answers 503 until Temporal's retries of that call run out, and the turn is answered
 * by the next model of the agent's `fallbackModels`, whose output records which model answered and
 * which failed before it. When every model fails the agent blocks as before, and a retry starts again
 * from its first model. The CLI sets and removes the list.
 *
 * Kept fast the way providers themselves allow: the 503s carry `retry-after-ms: 1`, which the framework
 * honours as the retry delay, so the policy's attempts (all of them) follow each other at once.
 */
import { temporal } from '@temporalio/proto';
import { ModelError } from '../../activities/index';
import type { ModelOutputEntry } from '../../agent/index';
import { DEFAULT_MODEL_ACTIVITY_OPTIONS } from '../../workflows/activity-options';
import { cli } from '../support/cli';
import { useProviderServers } from '../support/provider-servers';
import { maybeRecordHistory } from '../support/record-history';
import { eventually, uniqueId, withWorker } from '../support/temporal';

const { t, p, taskQueue } = useProviderServers('fallback');

const OPENAI = 'openai:gpt-4.1-mini';
const ANTHROPIC = 'anthropic:claude-sonnet-4-6';
const ATTEMPTS = DEFAULT_MODEL_ACTIVITY_OPTIONS.retry!.maximumAttempts!;

/** Each model-call activity of the agent's run: its model (from the summary), last attempt, and how it ended. */
async function modelCalls(agentId: string) {
  const events = (await t.agents.handle(agentId).fetchHistory()).events ?? [];
  const calls = new Map<string, { attempt: number; failed?: { retryState: number; type: string } }>();
  for (const e of events) {
    const started = e.activityTaskStartedEventAttributes;
    if (started) calls.set(String(started.scheduledEventId), { attempt: started.attempt ?? 0 });
    const failed = e.activityTaskFailedEventAttributes;
    if (failed) {
      calls.get(String(failed.scheduledEventId))!.failed = {
        retryState: failed.retryState ?? 0,
        type: failed.failure?.cause?.applicationFailureInfo?.type ?? failed.failure?.applicationFailureInfo?.type ?? '',
      };
    }
  }
  return [...calls.values()];
}

test('503 until the retries run out: the fallback model answers the turn, and the output says so', async () => {
  await withWorker({ taskQueue, models: p.models() }, async () => {
    const agentId = uniqueId('fallback');
    const openaiBefore = p.openai.requests.length;
    const anthropicBefore = p.anthropic.requests.length;
    p.openai.enqueue(...Array.from({ length: ATTEMPTS }, () => ({ kind: 'error' as const, status: 503, headers: { 'retry-after-ms': '1' } })));
    p.anthropic.enqueue({ kind: 'stream', text: 'answered by the fallback model' });
    await t.agents.start(agentId, { model: OPENAI, fallbackModels: [ANTHROPIC] });

    const outcome = await t.agents.ask(agentId, 'hello, anyone there?');
    expect(outcome).toMatchObject({
      status: 'answered',
      answer: {
        contents: ['answered by the fallback model'],
        invocation: { providerId: 'anthropic', specification: 'anthropic-messages', model: 'claude-sonnet-4-6' },
        metadata: { fallback_from: [{ model: OPENAI, code: ModelError.Server }] },
      },
    });

    // Every attempt the retry policy allows went to OpenAI, then one request to Anthropic with the same turn.
    expect(p.openai.requests.length - openaiBefore).toBe(ATTEMPTS);
    const anthropicRequests = p.anthropic.requests.slice(anthropicBefore);
    expect(anthropicRequests).toHaveLength(1);
    expect(JSON.stringify(anthropicRequests[0].body.messages)).toContain('hello, anyone there?');
    expect(anthropicRequests[0].body.model).toBe('claude-sonnet-4-6');

    // In Temporal's history: the first call failed because its attempts ran out, the second completed.
    const calls = await modelCalls(agentId);
    expect(calls).toEqual([
      { attempt: ATTEMPTS, failed: { retryState: temporal.api.enums.v1.RetryState.RETRY_STATE_MAXIMUM_ATTEMPTS_REACHED, type: ModelError.Server } },
      { attempt: 1 },
    ]);
    const history = await t.agents.history(agentId);
    expect(history.map((e) => e.kind)).toEqual(['model_input', 'model_output']);
    expect((await t.agents.state(agentId)).lastError).toBeNull();
    await maybeRecordHistory(t.agents.handle(agentId), 'fallback-models_v1.json');
  });
});

test('every model failing blocks the agent on the last error; a retry starts again from the first model', async () => {
  await withWorker({ taskQueue, models: p.models() }, async () => {
    const agentId = uniqueId('fallback-exhausted');
    const openaiBefore = p.openai.requests.length;
    const anthropicBefore = p.anthropic.requests.length;
    // Not retried (a key the provider refuses): each model fails at once, and the next is tried.
    p.openai.enqueue({ kind: 'error', status: 401 });
    p.anthropic.enqueue({ kind: 'error', status: 401 });
    await t.agents.start(agentId, { model: OPENAI, fallbackModels: [ANTHROPIC] });
    const { inputSeq } = await t.agents.send(agentId, 'hello');
    const outcome = await t.agents.waitForAnswer(agentId, inputSeq);
    expect(outcome).toMatchObject({ status: 'error', error: { code: ModelError.Authentication, runState: 'PendingInput' } });
    const error = (outcome as { error: { message: string } }).error;
    expect(error.message).toContain(`[${ANTHROPIC}; tried before it: ${OPENAI} (${ModelError.Authentication})]`);
    expect(p.openai.requests.length - openaiBefore).toBe(1);
    expect(p.anthropic.requests.length - anthropicBefore).toBe(1);

    p.openai.enqueue({ kind: 'stream', text: 'the first model is back' });
    await t.agents.retry(agentId);
    const retried = await t.agents.waitForAnswer(agentId, inputSeq);
    expect(retried).toMatchObject({
      status: 'answered',
      answer: { contents: ['the first model is back'], invocation: { providerId: 'openai', model: 'gpt-4.1-mini' } },
    });
    expect((retried as { answer: ModelOutputEntry }).answer.metadata).not.toHaveProperty('fallback_from');
    expect(p.anthropic.requests.length - anthropicBefore).toBe(1);
  });
});

test('the CLI sets the fallback models at start and removes them with configure', async () => {
  await withWorker({ taskQueue, models: p.models() }, async () => {
    const agentId = uniqueId('fallback-cli');
    const env = { LIVECONTEXT_TASK_QUEUE: taskQueue };
    const started = await cli(['start', agentId, '--model', OPENAI, '--fallback-models', `${ANTHROPIC}, openai:gpt-4.1`], { env });
    expect(started.code).toBe(0);
    await eventually(async () => (await t.agents.state(agentId)).config.fallbackModels?.length === 2, 10_000, 'the agent to start');
    expect((await t.agents.state(agentId)).config.fallbackModels).toEqual([ANTHROPIC, 'openai:gpt-4.1']);

    const bad = await cli(['configure', agentId, '--fallback-models', 'claude'], { env });
    expect(bad.code).not.toBe(0);
    expect(bad.stderr).toContain('Invalid model name "claude"');

    const cleared = await cli(['configure', agentId, '--fallback-models', ''], { env });
    expect(cleared).toMatchObject({ code: 0, stdout: `Agent "${agentId}": model ${OPENAI}; system instruction (none).\n` });
    expect((await t.agents.state(agentId)).config.fallbackModels).toEqual([]);
  });
});
