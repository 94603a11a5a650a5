/**
 * A configuration change (or a retry) is a reason to try a failed model call again — but only a call
 * that failed or is under way. One made while the agent was idle used to stay armed, so the next error,
 * maybe days later, was retried at once behind the user's back (an extra paid call, and in the chat the
 * error line never showed). Found through the chat's /system.
 */
import { retrySignal } from '../../workflows/messages';
import { useProviderServers } from '../support/provider-servers';
import { maybeRecordHistory } from '../support/record-history';
import { eventually, uniqueId, withWorker } from '../support/temporal';

const { t, p, taskQueue } = useProviderServers('stale-retry', { each: true });

const requestsFor = (text: string) => p.openai.requests.filter((r) => JSON.stringify(r.body.messages).includes(text)).length;

test('a configure or retry on an idle agent does not retry its next error; one on a blocked agent does', async () => {
  const agentId = uniqueId('stale-retry');
  p.openai.respond = () => ({ kind: 'stream', text: 'fine' });
  await withWorker({ taskQueue, models: p.models() }, async () => {
    await t.agents.start(agentId, { model: 'openai:gpt-4.1-mini' });
    await expect(t.agents.ask(agentId, 'one')).resolves.toMatchObject({ status: 'answered' });

    // Idle: a new system instruction and a bare retry signal (as the gateway's POST /retry sends).
    await t.agents.configure(agentId, { systemInstruction: 'Be brief.' });
    await t.agents.handle(agentId).signal(retrySignal);

    p.openai.enqueue({ kind: 'error', status: 401 });
    const outcome = await t.agents.ask(agentId, 'two');
    expect(outcome).toMatchObject({ status: 'error', error: { code: 'ModelError.Authentication' } });
    await new Promise((r) => setTimeout(r, 1_500)); // an armed retry would have called again by now
    expect(requestsFor('two')).toBe(1);
    expect(await t.agents.state(agentId)).toMatchObject({ blockedOn: 'error' });

    // Blocked: the change tries the call again, with the new instruction.
    await t.agents.configure(agentId, { systemInstruction: 'Be very brief.' });
    await eventually(async () => (await t.agents.state(agentId)).blockedOn === 'input', 30_000, 'the retried turn');
    expect(requestsFor('two')).toBe(2);
    const last = p.openai.requests[p.openai.requests.length - 1].body.messages as Array<{ role: string; content: string }>;
    expect(last[0]).toMatchObject({ role: 'system', content: expect.stringContaining('Be very brief.') });
  });
  await maybeRecordHistory(t.agents.handle(agentId), 'stale-retry_v1.json');
});
