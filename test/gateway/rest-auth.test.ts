/**
 * Bearer tokens on the REST API: a read-only token reads state and history but cannot send, approve,
 * configure, stop (or anything else that changes an agent); a full token can; no token or a wrong one
 * gets nothing. The tokens appear in no response, no gateway log and no console output.
 */
import { serveGateway, type RunningGateway } from '../../gateway/serve-gateway';
import { tokensFromEnv } from '../../gateway/tokens';
import { connectTest, eventually, type TestContext, uniqueId } from '../support/temporal';
import { type BackgroundWorker, startBackgroundWorker } from './rest-support';

const FULL = `full-${uniqueId('tok')}-secret`;
const READ = `read-${uniqueId('tok')}-secret`;

let t: TestContext;
let worker: BackgroundWorker;
let gw: RunningGateway;
const logs: string[] = [];
const seen: string[] = []; // every response status line, header and body
const consoleSpies: jest.SpyInstance[] = [];
beforeAll(async () => {
  for (const method of ['log', 'error', 'warn', 'info', 'debug'] as const) {
    const original = console[method].bind(console);
    consoleSpies.push(
      jest.spyOn(console, method).mockImplementation((...args: unknown[]) => {
        logs.push(args.map(String).join(' '));
        original(...args);
      }),
    );
  }
  t = await connectTest(uniqueId('rest-auth'));
  worker = await startBackgroundWorker(t.agents.taskQueue, t.agents);
  gw = await serveGateway({
    agents: t.agents,
    tokens: tokensFromEnv({ LIVECONTEXT_GATEWAY_TOKEN: FULL, LIVECONTEXT_GATEWAY_READ_TOKEN: READ }),
    port: 0,
    log: (m) => logs.push(m),
  });
});
afterAll(async () => {
  await gw?.close();
  await worker?.stop();
  await t?.close();
  for (const spy of consoleSpies) spy.mockRestore();
});

async function call(token: string | undefined, method: string, path: string, body?: unknown) {
  const headers: Record<string, string> = body === undefined ? {} : { 'content-type': 'application/json' };
  if (token) headers.authorization = `Bearer ${token}`;
  const res = await fetch(gw.url + path, { method, headers, body: body === undefined ? undefined : JSON.stringify(body) });
  const text = await res.text();
  seen.push(`${res.status} ${[...res.headers].map(([k, v]) => `${k}: ${v}`).join('\n')}\n${text}`);
  return { status: res.status, body: text ? JSON.parse(text) : undefined };
}

test('read-only reads everything and changes nothing; full changes; none or a wrong token gets nothing', async () => {
  const agentId = uniqueId('guarded');
  expect(await call(READ, 'POST', '/agents', { agentId, model: 'demo:offline' })).toMatchObject({ status: 403, body: { error: { code: 'READ_ONLY_TOKEN' } } });
  expect(await call(FULL, 'POST', '/agents', { agentId, model: 'demo:offline' })).toMatchObject({ status: 201 });
  expect(await call(FULL, 'POST', `/agents/${agentId}/input?wait=1`, { text: 'remember the code word is teal' })).toMatchObject({
    status: 200,
    body: { inputSeq: 1 },
  });
  const pending = await call(FULL, 'POST', `/agents/${agentId}/input`, { text: 'delete note 1' });
  expect(pending).toMatchObject({ status: 202, body: { inputSeq: 2 } });
  const waiting = await eventually(async () => (await call(READ, 'GET', `/agents/${agentId}`)).body.awaitingApproval[0], 30_000, 'a call waiting for approval');

  for (const path of [
    `/agents`,
    `/agents?all=1`,
    `/agents/${agentId}`,
    `/agents/${agentId}/history`,
    `/agents/${agentId}/history?after=1&limit=1`,
    `/agents/${agentId}/export`,
    `/agents/${agentId}/notebook`,
    `/agents/${agentId}/tasks`,
    `/agents/${agentId}/answers/1`,
  ]) {
    expect({ path, ...(await call(READ, 'GET', path)) }).toMatchObject({ status: 200 });
  }

  const before = await t.agents.state(agentId);
  const snapshot = (await call(READ, 'GET', `/agents/${agentId}/export`)).body;
  const changes: Array<[string, unknown?]> = [
    [`/agents/${agentId}/input`, { text: 'hi' }],
    [`/agents/${agentId}/tool-calls/${waiting.toolCallId}/approve`, {}],
    [`/agents/${agentId}/tool-calls/${waiting.toolCallId}/deny`, { reason: 'no' }],
    [`/agents/${agentId}/configure`, { model: 'scripted:echo' }],
    [`/agents/${agentId}/notebook`, { set: 'overwritten' }],
    [`/agents/${agentId}/retry`],
    [`/agents/${agentId}/reset`],
    [`/agents/${agentId}/stop`, { reason: 'read-only says so' }],
    ['/agents/import', { snapshot, agentId: uniqueId('copy') }],
  ];
  for (const [path, body] of changes) {
    expect({ path, ...(await call(READ, 'POST', path, body)) }).toMatchObject({ status: 403, body: { error: { code: 'READ_ONLY_TOKEN' } } });
    expect({ path, ...(await call(undefined, 'POST', path, body)) }).toMatchObject({ status: 401, body: { error: { code: 'UNAUTHORIZED' } } });
    expect({ path, ...(await call(`${FULL}x`, 'POST', path, body)) }).toMatchObject({ status: 401 });
  }
  for (const path of [`/agents`, `/agents/${agentId}`, `/agents/${agentId}/history`, `/agents/${agentId}/export`]) {
    expect({ path, ...(await call(undefined, 'GET', path)) }).toMatchObject({ status: 401 });
    expect({ path, ...(await call(READ.slice(0, -1), 'GET', path)) }).toMatchObject({ status: 401 });
  }
  // Nothing changed: the same inputs, the same call waiting, the same configuration and notebook, still running.
  expect(await t.agents.state(agentId)).toEqual(before);
  expect((await t.agents.handle(agentId).describe()).status.name).toBe('RUNNING');

  // The full token can.
  expect(await call(FULL, 'POST', `/agents/${agentId}/tool-calls/${waiting.toolCallId}/approve`, { by: 'ops' })).toMatchObject({ status: 200 });
  expect(await call(FULL, 'GET', `/agents/${agentId}/answers/2`)).toMatchObject({ status: 200, body: { status: 'answered' } });
  expect(await call(FULL, 'POST', `/agents/${agentId}/configure`, { systemInstruction: 'Be brief.' })).toMatchObject({
    status: 200,
    body: { systemInstruction: 'Be brief.' },
  });
  expect(await call(FULL, 'POST', `/agents/${agentId}/notebook`, { append: '- more\n' })).toMatchObject({ status: 200 });
  expect(await call(FULL, 'POST', `/agents/${agentId}/stop`, { reason: 'done' })).toMatchObject({ status: 202 });
  await eventually(async () => (await t.agents.handle(agentId).describe()).status.name === 'COMPLETED', 30_000, 'the agent to stop');
});

test('no token in any response, gateway log or console output', () => {
  expect(seen.length).toBeGreaterThan(40);
  for (const text of [...seen, ...logs]) {
    expect(text).not.toContain(FULL);
    expect(text).not.toContain(READ);
  }
});
