/**
 * Issue 26, item 6: POST /agents (the curl example in docs/http-gateway.md) says at once, in its 201 answer, when no
 * worker can call the new agent's model — as `livecontext start` does — instead of the first turn
 * blocking later. The agent is started all the same. Real dev server, real worker (no OpenAI key there).
 */
import { uniqueId } from '../support/temporal';
import { useRestGateway } from './rest-support';

const saved = { key: process.env.OPENAI_API_KEY, base: process.env.OPENAI_BASE_URL };
beforeAll(() => {
  // The worker runs in this process: it has no OpenAI key and no compatible server.
  delete process.env.OPENAI_API_KEY;
  delete process.env.OPENAI_BASE_URL;
});
afterAll(() => {
  Object.assign(process.env, {
    ...(saved.key !== undefined ? { OPENAI_API_KEY: saved.key } : {}),
    ...(saved.base !== undefined ? { OPENAI_BASE_URL: saved.base } : {}),
  });
});
const rest = useRestGateway('start-warn');

test('a model the worker can call: no warning; one it cannot: started, with the reason and the way out', async () => {
  const fine = uniqueId('warn-none');
  const ok = await rest.gw.request('POST', '/agents', { agentId: fine, model: 'scripted:echo' });
  expect(ok).toMatchObject({ status: 201, body: { agentId: fine } });
  expect(ok.body).not.toHaveProperty('warning');

  const keyless = uniqueId('warn-key');
  const noKey = await rest.gw.request('POST', '/agents', { agentId: keyless, model: 'openai:gpt-4.1-mini' });
  expect(noKey).toMatchObject({ status: 201, body: { agentId: keyless, warning: expect.stringContaining('OPENAI_API_KEY is not set') } });
  expect(noKey.body.warning).toContain(`POST /agents/${keyless}/configure`);
  expect(noKey.body.warning).toContain(`POST /agents/${keyless}/retry`);
  expect(noKey.body.warning).not.toMatch(/livecontext (configure|retry)/);
  expect((await rest.t.agents.handle(keyless).describe()).status.name).toBe('RUNNING');

  const other = uniqueId('warn-provider');
  const unknown = await rest.gw.request('POST', '/agents', { agentId: other, model: 'nowhere:model-x' });
  expect(unknown).toMatchObject({ status: 201, body: { warning: expect.stringMatching(/the worker has no model provider "nowhere" \(it has .*scripted/) } });
});
