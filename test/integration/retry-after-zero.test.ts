/**
 * A rate limit answered with `retry-after: 0` (or `retry-after-ms: 0`) means "try again now": the call
 * is retried at once and the turn completes, through both official SDKs and the wire fakes.
 */
import { useProviderServers } from '../support/provider-servers';
import { uniqueId, withWorker } from '../support/temporal';

const { t, p, taskQueue } = useProviderServers('retry-now');

test.each([
  ['openai', 'retry-after', '0'],
  ['openai', 'retry-after-ms', '0'],
  ['anthropic', 'retry-after', '0'],
  ['anthropic', 'retry-after-ms', '0'],
] as const)('%s: 429 with %s: %s is retried at once and the turn completes', async (provider, header, value) => {
  await withWorker({ taskQueue, models: p.models() }, async () => {
    const agentId = uniqueId('retry-now');
    const fake = provider === 'openai' ? p.openai : p.anthropic;
    const before = fake.requests.length;
    fake.enqueue({ kind: 'error', status: 429, headers: { [header]: value } }, { kind: 'stream', text: 'after a zero retry-after' });
    await t.agents.start(agentId, { model: provider === 'openai' ? 'openai:gpt-4.1-mini' : 'anthropic:claude-sonnet-4-6' });
    const outcome = await t.agents.ask(agentId, 'hello');
    expect(outcome).toMatchObject({ status: 'answered', answer: { contents: ['after a zero retry-after'] } });
    expect(fake.requests.length - before).toBe(2); // the 429, then the retry
    expect((await t.agents.state(agentId)).lastError).toBeNull();
  });
});
