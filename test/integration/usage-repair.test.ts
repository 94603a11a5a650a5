/**
 * Issue 26 weak spot: token counts a provider gets wrong (`prompt_tokens: 1e20`, negative) are repaired
 * where they enter (the model-call activity), noted on the answer, and accepted by the workflow's checks
 * of the model output: the agent goes on instead of blocking. Through the OpenAI wire fake.
 */
import { useProviderServers } from '../support/provider-servers';
import { uniqueId, withWorker } from '../support/temporal';

const { t, p, taskQueue } = useProviderServers('usage-repair');
const OPENAI = 'openai:gpt-4.1-mini';

test('usage of 1e20 and negative counts is clamped and noted; the agent answers and goes on', async () => {
  await withWorker({ taskQueue, models: p.models() }, async () => {
    const agentId = uniqueId('usage');
    await t.agents.start(agentId, { model: OPENAI, budgets: { turnTokens: 10_000_000_000_000 } });
    p.openai.enqueue(
      {
        kind: 'stream',
        text: 'first',
        rawUsage: { prompt_tokens: 1e20, completion_tokens: -3, total_tokens: 1e20, prompt_tokens_details: { cached_tokens: 1e21 } },
      },
      { kind: 'stream', text: 'second', rawUsage: { prompt_tokens: 5, completion_tokens: 2, total_tokens: 7 } },
    );
    expect(await t.agents.ask(agentId, 'one')).toMatchObject({ status: 'answered', answer: { contents: ['first'] } });
    expect(await t.agents.ask(agentId, 'two')).toMatchObject({ status: 'answered', answer: { contents: ['second'] } });
    const outputs = (await t.agents.history(agentId)).filter((e) => e.kind === 'model_output');
    expect(outputs[0]).toMatchObject({
      usage: { inputTokens: 1_000_000_000, outputTokens: 0, cachedInputTokens: 1_000_000_000 },
      metadata: {
        usage_repaired: expect.stringMatching(
          /^inputTokens 100000000000000000000 read as 1000000000; outputTokens -3 read as 0; cachedInputTokens 1e\+21 read as 1000000000; totalTokens 100000000000000000000 read as 1000000000$/,
        ),
      },
    });
    expect(outputs[1]).toMatchObject({ usage: { inputTokens: 5, outputTokens: 2 } });
    expect(outputs[1].metadata).not.toHaveProperty('usage_repaired');
    const state = await t.agents.state(agentId);
    expect(state.lastError ?? undefined).toBeUndefined();
    // What the agent carries holds by its own checks: an export of it imports again.
    const snapshot = await t.agents.snapshot(agentId);
    const copy = uniqueId('usage-copy');
    await t.agents.restore(copy, snapshot);
    expect((await t.agents.history(copy)).filter((e) => e.kind === 'model_output')).toHaveLength(2);
  });
});

test('a cost budget on a worker without a price for the model is said in state: it would never be reached', async () => {
  await withWorker({ taskQueue, models: p.models() }, async () => {
    const agentId = uniqueId('unpriced');
    await t.agents.start(agentId, { model: OPENAI, budgets: { dayCostUsd: 5 } });
    p.openai.enqueue({ kind: 'stream', text: 'free here' });
    expect(await t.agents.ask(agentId, 'one')).toMatchObject({ status: 'answered' });
    const state = await t.agents.state(agentId);
    expect(state.warning).toBe(
      'The cost budget (dayCostUsd) is not enforced: the worker that called openai:gpt-4.1-mini has no price for it, so its calls cost nothing here. Give the worker a price table (LIVECONTEXT_PRICES) or use token budgets (turnTokens, dayTokens).',
    );
    expect(state.usage.costUsd).toBe(0);
  });
  // With a price for the model, no warning.
  await withWorker({ taskQueue, models: p.models(), prices: { 'openai:gpt-4.1-mini': { input: 1, output: 4 } } }, async () => {
    const agentId = uniqueId('priced');
    await t.agents.start(agentId, { model: OPENAI, budgets: { dayCostUsd: 5 } });
    p.openai.enqueue({ kind: 'stream', text: 'priced' });
    expect(await t.agents.ask(agentId, 'one')).toMatchObject({ status: 'answered' });
    const state = await t.agents.state(agentId);
    expect(state.warning).toBeNull();
    expect(state.usage.costUsd).toBeGreaterThan(0);
  });
});
