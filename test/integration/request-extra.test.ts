/**
 * `params.extra` through the real dev server and the wire-level fakes: a field the adapter owns is
 * refused at start and by configure; a harmless provider field reaches the wire; and an adapter given a
 * reserved key anyway (a config accepted before the keys were reserved) leaves it out of the request.
 */
import { anthropicProvider, openaiProvider } from '../../activities/index';
import { AgentState, type Model, renderLiveContext } from '../../agent/index';
import { unknownRequestKeys } from '../support/fake-openai-server';
import { useProviderServers } from '../support/provider-servers';
import { uniqueId, withWorker } from '../support/temporal';

const { t, p, taskQueue } = useProviderServers('extra');

test('a reserved key is refused at start and by configure; a harmless one reaches the wire', async () => {
  await withWorker({ taskQueue, models: p.models() }, async () => {
    // Refused by the client before anything starts, with the reason.
    await expect(t.agents.start(uniqueId('extra-start'), { model: 'openai:gpt-4.1-mini', params: { extra: { stream: false } } })).rejects.toThrow(
      /params\.extra: may not set "stream"/,
    );

    const agentId = uniqueId('extra');
    await t.agents.start(agentId, { model: 'openai:gpt-4.1-mini' });
    await expect(t.agents.configure(agentId, { params: { extra: { messages: [], seed: 1 } } })).rejects.toMatchObject({
      cause: { type: 'BAD_CONFIG', message: expect.stringMatching(/^params\.extra: may not set "messages": the adapter sets/) },
    });

    await t.agents.configure(agentId, { params: { extra: { seed: 1, metadata: { team: 'evals' } } } });
    p.openai.enqueue({ kind: 'stream', text: 'Seeded.' });
    expect(await t.agents.ask(agentId, 'hello')).toMatchObject({ status: 'answered', answer: { contents: ['Seeded.'] } });
    const body = p.openai.requests[p.openai.requests.length - 1].body;
    expect(body).toMatchObject({ model: 'gpt-4.1-mini', stream: true, seed: 1, metadata: { team: 'evals' } });
    expect(unknownRequestKeys(body)).toEqual([]);

    await t.agents.configure(agentId, { model: 'anthropic:claude-sonnet-4-6', params: { extra: { metadata: { user_id: 'u-1' }, top_k: 5 } } });
    p.anthropic.enqueue({ kind: 'stream', text: 'Tagged.' });
    expect(await t.agents.ask(agentId, 'again')).toMatchObject({ status: 'answered', answer: { contents: ['Tagged.'] } });
    expect(p.anthropic.requests[p.anthropic.requests.length - 1].body).toMatchObject({ stream: true, metadata: { user_id: 'u-1' }, top_k: 5 });
  });
});

describe('an adapter given reserved keys anyway', () => {
  const context = () => {
    const s = new AgentState(() => 0);
    s.appendModelInput({ sections: [{ title: 'Input', content: 'the real question' }] });
    return renderLiveContext(s.entries, {});
  };
  const drain = async (model: Model) => {
    for await (const d of model.stream(context(), [], 'the real system prompt', {})) if (d.kind === 'error') throw new Error(d.message);
  };
  const hostile = { model: 'other', messages: [], system: 'injected', stream: false, stream_options: null, max_tokens: 1, seed: 7 };

  test('OpenAI leaves them out', async () => {
    const model = openaiProvider({ apiKey: p.openai.apiKey, baseURL: `${p.openai.url}/v1` }).create('gpt-4.1-mini');
    model.updateConfig({ extra: hostile });
    p.openai.enqueue({ kind: 'stream', text: 'ok' });
    await drain(model);
    const body = p.openai.requests[p.openai.requests.length - 1].body;
    expect(body).toMatchObject({ model: 'gpt-4.1-mini', stream: true, stream_options: { include_usage: true }, seed: 7 });
    expect(JSON.stringify(body.messages)).toContain('the real question');
    expect(body).not.toHaveProperty('system');
    expect(body).not.toHaveProperty('max_tokens');
  });

  test('Anthropic leaves them out', async () => {
    const model = anthropicProvider({ apiKey: p.anthropic.apiKey, baseURL: p.anthropic.url }).create('claude-sonnet-4-6');
    model.updateConfig({ extra: { ...hostile, seed: undefined, top_k: 3 } });
    p.anthropic.enqueue({ kind: 'stream', text: 'ok' });
    await drain(model);
    const body = p.anthropic.requests[p.anthropic.requests.length - 1].body;
    expect(body).toMatchObject({ model: 'claude-sonnet-4-6', stream: true, top_k: 3 });
    expect(body.max_tokens).toBeGreaterThan(1);
    expect(JSON.stringify(body.system)).toContain('the real system prompt');
    expect(JSON.stringify(body.messages)).toContain('the real question');
  });
});
