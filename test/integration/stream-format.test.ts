/**
 * Seed 002's stream format through the real dev server and the wire-level fakes: each call's
 * requestMetadata reaches the provider as an opaque per-agent end-user id (OpenAI `user`, Anthropic
 * `metadata.user_id`); a worker's stream observer sees every delta stamped, numbered, with the usage's
 * totalTokens and the provider's own events; none of that reaches the agent's history.
 */
import type { MessageDelta } from '../../agent/index';
import { type ModelStreamObserver, openaiProvider } from '../../activities/index';
import { opaqueSessionId } from '../../activities/models/request-identity';
import { useProviderServers } from '../support/provider-servers';
import { uniqueId, withWorker } from '../support/temporal';

const { t, p, taskQueue } = useProviderServers('stream-format');

type Seen = { delta: MessageDelta; call: Parameters<ModelStreamObserver>[1] };

test('requestMetadata reaches both providers; the observer sees timestamps, totalTokens and provider events; history keeps none', async () => {
  const agentId = uniqueId('stream-agent');
  const seen: Seen[] = [];
  const observeModelStream: ModelStreamObserver = (delta, call) => void seen.push({ delta, call });
  await withWorker({ taskQueue, models: p.models(), observeModelStream }, async () => {
    await t.agents.start(agentId, { model: 'openai:gpt-4.1-mini' });
    p.openai.enqueue({ kind: 'stream', text: 'Counted answer.', rawUsage: { prompt_tokens: 40, completion_tokens: 3, total_tokens: 43 } });
    await expect(t.agents.ask(agentId, 'hello')).resolves.toMatchObject({ status: 'answered', answer: { contents: ['Counted answer.'] } });

    const openaiBody = p.openai.requests[p.openai.requests.length - 1].body;
    expect(openaiBody.user).toBe(opaqueSessionId(agentId));
    expect(openaiBody.user).toMatch(/^lc_[0-9a-f]{32}$/);
    expect(JSON.stringify(openaiBody)).not.toContain(agentId);
    expect(openaiBody).not.toHaveProperty('metadata'); // OpenAI refuses metadata without store: true

    const openaiDeltas = seen.filter((s) => s.call.model === 'openai:gpt-4.1-mini').map((s) => s.delta);
    expect(seen[0].call).toMatchObject({ agentId, model: 'openai:gpt-4.1-mini', attempt: 1 });
    expect(openaiDeltas.map((d) => d.seq)).toEqual(openaiDeltas.map((_, i) => i + 1));
    for (const d of openaiDeltas) expect(Number.isNaN(Date.parse(d.timestamp))).toBe(false);
    expect(openaiDeltas[0]).toMatchObject({ kind: 'start', requestId: expect.stringMatching(/^req_/) });
    expect(openaiDeltas.find((d) => d.kind === 'usage')).toMatchObject({ usage: { inputTokens: 40, outputTokens: 3, totalTokens: 43 } });
    // Every chunk the SDK parsed rides on some delta; the usage chunk is among them.
    const chunks = openaiDeltas.flatMap((d) => d.providerRaw ?? []) as Array<{ object?: string; usage?: unknown }>;
    expect(chunks.length).toBeGreaterThan(1);
    expect(chunks.every((c) => c.object === 'chat.completion.chunk')).toBe(true);
    expect(chunks.some((c) => c.usage && typeof c.usage === 'object')).toBe(true);

    await t.agents.configure(agentId, { model: 'anthropic:claude-sonnet-4-6' });
    p.anthropic.enqueue({ kind: 'stream', text: 'From Claude.', usage: { inputTokens: 50, outputTokens: 4 } });
    await expect(t.agents.ask(agentId, 'again')).resolves.toMatchObject({ status: 'answered', answer: { contents: ['From Claude.'] } });
    const anthropicBody = p.anthropic.requests[p.anthropic.requests.length - 1].body;
    expect(anthropicBody.metadata).toEqual({ user_id: opaqueSessionId(agentId) });

    const anthropicDeltas = seen.filter((s) => s.call.model === 'anthropic:claude-sonnet-4-6').map((s) => s.delta);
    expect(anthropicDeltas[0]).toMatchObject({ kind: 'start', requestId: expect.stringMatching(/^req_/) });
    // Anthropic reports no total: the adapter's is all input (cache reads and writes included) plus output.
    const anthropicUsage = anthropicDeltas.find((d) => d.kind === 'usage');
    if (anthropicUsage?.kind !== 'usage') throw new Error('no usage delta from Anthropic');
    const { totalTokens, ...claudeUsage } = anthropicUsage.usage;
    expect(claudeUsage).toMatchObject({ outputTokens: 4 });
    expect(claudeUsage.inputTokens).toBeGreaterThanOrEqual(50);
    expect(totalTokens).toBe(claudeUsage.inputTokens + 4);
    const events = anthropicDeltas.flatMap((d) => d.providerRaw ?? []) as Array<{ type: string }>;
    expect(events[0].type).toBe('message_start');
    expect(events[events.length - 1].type).toBe('message_stop');

    // History holds the seed-000 usage only: no totalTokens, no provider events, no timestamps of deltas.
    const outputs = (await t.agents.history(agentId)).filter((e) => e.kind === 'model_output');
    expect(outputs.map((o) => o.kind === 'model_output' && o.usage)).toEqual([{ inputTokens: 40, outputTokens: 3 }, claudeUsage]);
    // What Temporal stored as the model calls' results (plain JSON payloads: this worker has no encryption key).
    const raw = ((await t.agents.handle(agentId).fetchHistory()).events ?? [])
      .flatMap((e) => e.activityTaskCompletedEventAttributes?.result?.payloads ?? [])
      .map((payload) => Buffer.from(payload.data ?? new Uint8Array()).toString('utf8'))
      .join('\n');
    expect(raw).toContain('Counted answer.');
    expect(raw).toContain('"outputTokens":3');
    expect(raw).not.toContain('totalTokens');
    expect(raw).not.toContain('providerRaw');
    expect(raw).not.toContain('chat.completion.chunk');
  });
});

test('without an observer no provider events are asked for; a provider can keep the id to itself; params.extra replaces it', async () => {
  const agentId = uniqueId('stream-quiet');
  const quiet = [
    ...p.models().filter((m) => m.id !== 'openai'),
    // An OpenAI-compatible server that should get no end-user id.
    openaiProvider({ apiKey: p.openai.apiKey, baseURL: `${p.openai.url}/v1`, requestMetadata: false }),
  ];
  await withWorker({ taskQueue, models: quiet }, async () => {
    await t.agents.start(agentId, { model: 'openai:gpt-4.1-mini' });
    p.openai.enqueue({ kind: 'stream', text: 'No id.' });
    await expect(t.agents.ask(agentId, 'hi')).resolves.toMatchObject({ status: 'answered' });
    expect(p.openai.requests[p.openai.requests.length - 1].body).not.toHaveProperty('user');

    await t.agents.configure(agentId, { model: 'anthropic:claude-sonnet-4-6', params: { extra: { metadata: { user_id: 'my-own-user' } } } });
    p.anthropic.enqueue({ kind: 'stream', text: 'Mine.' });
    await expect(t.agents.ask(agentId, 'hi')).resolves.toMatchObject({ status: 'answered' });
    expect(p.anthropic.requests[p.anthropic.requests.length - 1].body.metadata).toEqual({ user_id: 'my-own-user' });
  });
});
