/**
 * A model call that blocks the agent is part of its record: a model_failure entry says what failed
 * (code, message), which model, when, and after how many attempts — once Temporal's retries ran out (a
 * 503 six times) and for a failure that is not retried (401, attempts unknown). The model never sees
 * it (the retry sends the same messages as the failed call), `history` (CLI, REST) shows it, export and restore
 * keep it, and the run replays; with LIVECONTEXT_RECORD_HISTORIES=1 it is recorded as model-failure_v1.
 */
import { Worker } from '@temporalio/worker';
import { ModelError } from '../../activities/index';
import type { HistoryEntry, ModelFailureEntry } from '../../agent/index';
import { cli } from '../support/cli';
import { startTestGateway } from '../support/gateway';
import type { FakeOpenAIResponse } from '../support/fake-openai-server';
import { useProviderServers } from '../support/provider-servers';
import { maybeRecordHistory } from '../support/record-history';
import { eventually, uniqueId, withWorker, workflowBundle } from '../support/temporal';

const { t, p, taskQueue } = useProviderServers('model-failure');
const MODEL = 'openai:gpt-4.1-mini';
/** Retryable, and at once: `retry-after: 0` (see retry-after-zero.test.ts). */
const unavailable: FakeOpenAIResponse = { kind: 'error', status: 503, headers: { 'retry-after': '0' } };

const failures = (history: HistoryEntry[]) => history.filter((e): e is ModelFailureEntry => e.kind === 'model_failure');
/** The messages a request sent the model. */
const messagesOf = (i: number) => JSON.stringify((p.openai.requests[i].body as { messages: unknown }).messages);

async function answersAfterRetry(agentId: string, text: string): Promise<void> {
  p.openai.enqueue({ kind: 'stream', text });
  await t.agents.retry(agentId);
  await eventually(async () => (await t.agents.state(agentId)).blockedOn === 'input', 30_000, `the answer "${text}" after the retry`);
}

test('a blocking model failure leaves a model_failure entry the model never sees; history, export and replay keep it', async () => {
  await withWorker({ taskQueue, models: p.models() }, async () => {
    const agentId = uniqueId('model-failure');
    await t.agents.start(agentId, { model: MODEL });

    // Every attempt fails: the agent blocks, and says so in its history.
    p.openai.enqueue(...Array.from({ length: 6 }, () => unavailable));
    const before = Date.now();
    await expect(t.agents.ask(agentId, 'hello')).resolves.toMatchObject({ status: 'error', error: { code: ModelError.Server } });
    expect(p.openai.requests.length).toBe(6);
    let history = await t.agents.history(agentId);
    expect(history.map((e) => e.kind)).toEqual(['model_input', 'model_failure']);
    const [outage] = failures(history);
    expect(outage).toMatchObject({ code: ModelError.Server, model: MODEL, call: 'model', attempts: 6 });
    expect(outage.message).toMatch(/503/);
    expect(Date.parse(outage.timestamp)).toBeGreaterThanOrEqual(before - 1000);
    expect((await t.agents.state(agentId)).lastError).toMatchObject({ code: ModelError.Server });

    // A retry that succeeds: the answer follows the failure, and the model was sent what the failed call sent.
    await answersAfterRetry(agentId, 'back again');
    expect(p.openai.requests.length).toBe(7);
    expect(messagesOf(6)).toBe(messagesOf(5));
    expect(messagesOf(6)).not.toMatch(/model_failure|503|ModelError/);
    expect((await t.agents.state(agentId)).lastError).toBeNull();

    // A failure that is not retried: recorded too, without an attempt count (Temporal does not say which attempt it was).
    p.openai.enqueue({ kind: 'error', status: 401 });
    await expect(t.agents.ask(agentId, 'and now?')).resolves.toMatchObject({ status: 'error', error: { code: ModelError.Authentication } });
    await answersAfterRetry(agentId, 'fixed');
    history = await t.agents.history(agentId);
    expect(history.map((e) => e.kind)).toEqual(['model_input', 'model_failure', 'model_output', 'model_input', 'model_failure', 'model_output']);
    const denied = failures(history)[1];
    expect(denied).toMatchObject({ code: ModelError.Authentication, model: MODEL, call: 'model' });
    expect(denied.attempts).toBeUndefined();
    // The second turn's requests: the earlier failure is not among the messages either.
    for (let i = 7; i < p.openai.requests.length; i++) expect(messagesOf(i)).not.toMatch(/model_failure|ModelError/);

    // `livecontext history` shows both.
    const shown = await cli(['history', agentId], { env: { LIVECONTEXT_TASK_QUEUE: taskQueue } });
    expect(shown.code).toBe(0);
    expect(shown.stdout).toContain(`✗ model call to ${MODEL} failed after 6 attempts at ${outage.timestamp} (${ModelError.Server})`);
    expect(shown.stdout).toContain(`✗ model call to ${MODEL} failed at ${denied.timestamp} (${ModelError.Authentication})`);

    // The gateway's REST history serves them like any entry.
    const gateway = await startTestGateway(t.agents);
    try {
      const page = await gateway.request('GET', `/agents/${agentId}/history`);
      expect(page.status).toBe(200);
      expect(failures(page.body.entries)).toEqual(failures(history));
    } finally {
      await gateway.close();
    }

    // Export and restore keep the entries like any other.
    const copy = uniqueId('model-failure-copy');
    await t.agents.restore(copy, await t.agents.snapshot(agentId));
    expect(failures(await t.agents.history(copy))).toEqual(failures(history));
    await t.agents.stop(copy);

    const recorded = await t.agents.handle(agentId).fetchHistory();
    await Worker.runReplayHistory({ workflowBundle: workflowBundle() }, recorded, agentId);
    await maybeRecordHistory(t.agents.handle(agentId), 'model-failure_v1.json');
  });
});
