/**
 * The REST API's errors: clear JSON for each status, and a malformed request that never reaches an
 * agent (nor stops one from answering). On the real dev server, with a real rest.worker.
 */
import { AgentClient } from '../../client/agent-client';
import { toHttpError } from '../../gateway/http-errors';
import { uniqueId } from '../support/temporal';
import { answerText, useRestGateway } from './rest-support';

const rest = useRestGateway('rest-errors');
let agentId: string;
beforeAll(async () => {
  agentId = uniqueId('target');
  await rest.t.agents.start(agentId, { model: 'scripted:echo' });
});

/** fetch with a raw body and content type, for bodies startTestGateway would not send. */
async function raw(method: string, path: string, body: string, contentType = 'application/json') {
  const res = await fetch(rest.gw.url + path, { method, headers: { 'content-type': contentType }, body });
  return { status: res.status, body: (await res.json()) as { error?: { code: string; message: string } } };
}

test('400: bad JSON, a body, path or query off its schema (with the issues), two idempotency keys that differ', async () => {
  expect(await raw('POST', `/agents/${agentId}/input`, '{"text": "unterminated')).toMatchObject({ status: 400, body: { error: { code: 'BAD_JSON' } } });
  const off = await rest.gw.request('POST', `/agents/${agentId}/input`, { text: 5 });
  expect(off).toMatchObject({
    status: 400,
    body: { error: { code: 'BAD_REQUEST', message: expect.stringContaining('body.text'), issues: [{ path: ['text'] }] } },
  });
  expect(await rest.gw.request('POST', `/agents/${agentId}/input`, { text: 'hi', extra: true })).toMatchObject({
    status: 400,
    body: { error: { issues: [{ code: 'unrecognized_keys' }] } },
  });
  expect(await rest.gw.request('POST', `/agents/${agentId}/input`, {})).toMatchObject({
    status: 400,
    body: { error: { message: expect.stringContaining('"text" or "sections"') } },
  });
  expect(await rest.gw.request('POST', '/agents', { agentId: uniqueId('bad'), model: 'no-provider' })).toMatchObject({
    status: 400,
    body: { error: { message: expect.stringContaining('body.model') } },
  });
  expect(await rest.gw.request('GET', '/agents/has%20space')).toMatchObject({ status: 400, body: { error: { message: expect.stringContaining('path.id') } } });
  expect(await rest.gw.request('GET', `/agents/${agentId}/answers/first`)).toMatchObject({
    status: 400,
    body: { error: { message: expect.stringContaining('path.inputSeq') } },
  });
  expect(await rest.gw.request('GET', `/agents/${agentId}/history?limit=100000`)).toMatchObject({
    status: 400,
    body: { error: { message: expect.stringContaining('query.limit') } },
  });
  expect(await rest.gw.request('POST', `/agents/${agentId}/input?wait=perhaps`, { text: 'hi' })).toMatchObject({ status: 400 });
  expect(await rest.gw.request('POST', `/agents/${agentId}/input`, { text: 'hi', idempotencyKey: 'a' }, { headers: { 'idempotency-key': 'b' } })).toMatchObject(
    {
      status: 400,
      body: { error: { code: 'IDEMPOTENCY_KEY_MISMATCH' } },
    },
  );
  expect(await raw('POST', `/agents/${agentId}/input`, 'hello', 'text/plain')).toMatchObject({
    status: 415,
    body: { error: { code: 'UNSUPPORTED_MEDIA_TYPE' } },
  });
});

test('404: an unknown agent, input or route', async () => {
  const ghost = uniqueId('ghost');
  for (const [method, path, body] of [
    ['GET', `/agents/${ghost}`],
    ['GET', `/agents/${ghost}/history`],
    ['GET', `/agents/${ghost}/export`],
    ['POST', `/agents/${ghost}/input`, { text: 'hi' }],
    ['POST', `/agents/${ghost}/tool-calls/c1/approve`, {}],
    ['POST', `/agents/${ghost}/stop`, {}],
    ['POST', `/agents/${ghost}/retry`],
    ['POST', `/agents/${ghost}/reset`],
    ['POST', `/agents/${ghost}/interrupt`],
    ['POST', `/agents/${ghost}/notebook`, { append: 'x' }],
    ['GET', `/agents/${ghost}/answers/1`],
  ] as const) {
    // In plain words, with the id: not Temporal's "workflow not found for ID".
    expect({ path, ...(await rest.gw.request(method, path, body)) }).toMatchObject({
      status: 404,
      body: { error: { code: 'AGENT_NOT_FOUND', message: `No agent "${ghost}" in this namespace.` } },
    });
  }
  const events = await fetch(`${rest.gw.url}/agents/${ghost}/events`);
  expect({ status: events.status, body: await events.json() }).toMatchObject({
    status: 404,
    body: { error: { message: `No agent "${ghost}" in this namespace.` } },
  });
  expect(await rest.gw.request('GET', `/agents/${agentId}/answers/99`)).toMatchObject({
    status: 404,
    body: { error: { code: 'UNKNOWN_INPUT', message: expect.stringContaining('#99') } },
  });
  expect(await rest.gw.request('DELETE', `/agents/${agentId}`)).toMatchObject({ status: 404, body: { error: { code: 'NOT_FOUND' } } });
});

test('409: an agent that exists, a decision on a call not pending, input the agent refuses; 413: input over its limit', async () => {
  expect(await rest.gw.request('POST', '/agents', { agentId, model: 'scripted:echo' })).toMatchObject({
    status: 409,
    body: { error: { code: 'AGENT_EXISTS' } },
  });
  expect(await rest.gw.request('POST', `/agents/${agentId}/tool-calls/nothing-pending/deny`, { reason: 'no' })).toMatchObject({
    status: 409,
    body: { error: { message: expect.any(String) } },
  });
  // Schema-valid, but the agent refuses it: images without a word about them.
  const blank = { text: '  ', attachments: [{ type: 'image', url: 'https://example.com/cat.png' }] };
  expect(await rest.gw.request('POST', `/agents/${agentId}/input`, blank)).toMatchObject({ status: 409, body: { error: { code: 'BLANK_WITH_ATTACHMENTS' } } });
  // Under the gateway's 1 MiB body limit, over the agent's 256 KiB input limit.
  expect(await rest.gw.request('POST', `/agents/${agentId}/input`, { text: 'x'.repeat(300 * 1024) })).toMatchObject({
    status: 413,
    body: { error: { code: 'INPUT_TOO_LARGE' } },
  });
});

test("503: no worker polls the agent's task queue", async () => {
  const orphanQueue = uniqueId('no-worker');
  const orphan = uniqueId('orphan');
  await new AgentClient(rest.t.client, orphanQueue).start(orphan, { model: 'scripted:echo' });
  // At once (the worker check gives a starting worker 5 s, no more), with what to do about it.
  const requests = [
    ['GET', `/agents/${orphan}`],
    ['GET', `/agents/${orphan}/history`],
    ['POST', `/agents/${orphan}/input`, { text: 'anyone?' }],
  ] as const;
  const answers = await Promise.all(requests.map(async ([method, path, body]) => ({ path, ...(await rest.gw.request(method, path, body)) })));
  for (const res of answers) {
    expect(res).toMatchObject({ status: 503, body: { error: { code: 'NO_WORKER', message: expect.stringContaining(orphanQueue) } } });
    expect(res.body.error.message).toMatch(/livecontext worker/);
  }
  await rest.t.agents.stop(orphan);
});

test('429 when Temporal is overloaded (RESOURCE_EXHAUSTED), 503 when it does not answer', () => {
  const grpc = (code: number, details: string) => Object.assign(new Error(`${code} ${details}`), { code, details });
  expect(toHttpError(grpc(8, 'namespace rate limit exceeded'))).toMatchObject({ status: 429, code: 'OVERLOADED' });
  expect(toHttpError(grpc(14, 'connection refused'))).toMatchObject({ status: 503, code: 'UNAVAILABLE' });
  expect(toHttpError(new Error('a bug'))).toMatchObject({ status: 500, code: 'INTERNAL', message: expect.not.stringContaining('a bug') });
});

test('malformed requests never reach the agent, and it answers afterwards', async () => {
  const before = await rest.t.agents.state(agentId);
  const historyBefore = await rest.t.agents.history(agentId);
  const bad: Array<[string, string, string]> = [
    ['POST', `/agents/${agentId}/input`, 'null'],
    ['POST', `/agents/${agentId}/input`, '[]'],
    ['POST', `/agents/${agentId}/input`, '"text"'],
    ['POST', `/agents/${agentId}/input`, '{"sections": "not a list"}'],
    ['POST', `/agents/${agentId}/input`, JSON.stringify({ text: 'hi', idempotencyKey: 'k'.repeat(201) })],
    ['POST', `/agents/${agentId}/input`, JSON.stringify({ text: 'hi', attachments: [{ type: 'video' }] })],
    ['POST', `/agents/${agentId}/input`, '{"text": "a", "text": {"nested": ['],
    ['POST', `/agents/${agentId}/configure`, JSON.stringify({ model: 'gpt' })],
    ['POST', `/agents/${agentId}/configure`, JSON.stringify({ params: { temperature: 9 } })],
    ['POST', `/agents/${agentId}/configure`, JSON.stringify({ params: { extra: { messages: [] } } })],
    ['POST', `/agents/${agentId}/tool-calls/x/approve`, JSON.stringify({ by: 5 })],
    ['POST', `/agents/${agentId}/tool-calls/x/deny`, JSON.stringify({ approved: 'false' })],
    ['POST', `/agents/${agentId}/notebook`, JSON.stringify({ set: 'a', append: 'b' })],
    ['POST', `/agents/${agentId}/notebook`, JSON.stringify({ set: 1 })],
    ['POST', `/agents/${agentId}/stop`, JSON.stringify({ reason: ['x'] })],
    ['POST', '/agents/import', JSON.stringify({ snapshot: { format: 'something else' }, agentId: uniqueId('imp') })],
  ];
  for (const [method, path, body] of bad) {
    const res = await raw(method, path, body);
    expect({ body, status: res.status, code: res.body.error?.code }).toMatchObject({ status: 400, code: expect.stringMatching(/^BAD_/) });
  }
  const after = await rest.t.agents.state(agentId);
  expect({ ...after, usage: undefined }).toEqual({ ...before, usage: undefined });
  expect(await rest.t.agents.history(agentId)).toEqual(historyBefore);
  const answer = await rest.gw.request('POST', `/agents/${agentId}/input?wait=1`, { text: 'still there?' });
  expect(answer.status).toBe(200);
  expect(answerText(answer.body.outcome)).toBe('echo: still there?');
});
