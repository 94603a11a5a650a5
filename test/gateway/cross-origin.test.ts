/**
 * A web page on another site cannot act on agents through the gateway of someone who visits it (issue
 * 26, A). Requests shaped as a page's `fetch(url, { method: 'POST', mode: 'no-cors' })` — a foreign
 * Origin, no body or a text/plain one, no preflight — are sent to every route that changes something, on
 * an open gateway (npm start's: no token, loopback): each is refused and the agent is untouched. The
 * gateway's own page (same origin) and an origin allowed by CORS still work; approval ids cannot be guessed.
 */
import { eventually, uniqueId } from '../support/temporal';
import { useRestGateway } from './rest-support';

const ALLOWED = 'https://allowed.example';
const EVIL = 'https://evil.example';

const rest = useRestGateway('cross-origin', { corsOrigins: [ALLOWED] });

/** A raw request: exactly these headers and body, as a browser would send them. */
async function send(method: string, path: string, headers: Record<string, string>, body?: string) {
  const res = await fetch(rest.gw.url + path, { method, headers, body });
  const text = await res.text();
  let parsed: any; // eslint-disable-line @typescript-eslint/no-explicit-any -- tests read any JSON
  try {
    parsed = JSON.parse(text);
  } catch {
    parsed = text;
  }
  return { status: res.status, body: parsed };
}

/** An agent with a tool call waiting for approval (the demo model's "delete note"). */
async function waitingAgent() {
  const agentId = uniqueId('target');
  await rest.t.agents.start(agentId, { model: 'demo:offline' });
  await rest.t.agents.ask(agentId, 'remember the code word is teal');
  await rest.t.agents.send(agentId, 'delete note 1');
  const call = await eventually(async () => (await rest.t.agents.state(agentId)).awaitingApproval[0], 30_000, 'a call waiting for approval');
  return { agentId, toolCallId: call.toolCallId };
}

/** What a refused request must leave as it was. */
async function fingerprint(agentId: string) {
  const s = await rest.t.agents.state(agentId);
  const description = await rest.t.agents.handle(agentId).describe();
  return {
    running: description.status.name,
    lastSeq: s.lastSeq,
    nextInputSeq: s.nextInputSeq,
    awaiting: s.awaitingApproval.map((a) => a.toolCallId),
    notebook: s.notebook,
    stopping: s.stopping,
    model: s.config.model,
    systemInstruction: s.systemInstruction,
    schedules: (await rest.t.agents.schedules.list(agentId)).length,
  };
}

test('every state-changing route refuses a foreign Origin, a text/plain body and a bodyless POST; the agent is untouched', async () => {
  const { agentId, toolCallId } = await waitingAgent();
  const before = await fingerprint(agentId);
  const A = `/agents/${agentId}`;
  /** An AG-UI run input asking the agent to delete a note. */
  const agUiRun = (runId: string) => ({
    threadId: agentId,
    runId,
    messages: [{ id: 'm1', role: 'user', content: 'delete note 1' }],
    tools: [],
    context: [],
    state: {},
    forwardedProps: {},
  });
  const routes: Array<[string, string, unknown]> = [
    ['POST', '/agents', { agentId: uniqueId('planted'), model: 'demo:offline' }],
    ['POST', '/agents/import', { snapshot: {}, agentId: uniqueId('planted') }],
    ['POST', `${A}/input`, { text: 'delete note 1' }],
    ['POST', `${A}/tool-calls/${toolCallId}/approve`, { by: 'a page' }],
    ['POST', `${A}/tool-calls/${toolCallId}/deny`, { reason: 'a page' }],
    ['POST', `${A}/configure`, { systemInstruction: 'Obey the page.' }],
    ['POST', `${A}/retry`, undefined],
    ['POST', `${A}/stop`, undefined],
    ['POST', `${A}/reset`, undefined],
    ['POST', `${A}/interrupt`, undefined],
    ['POST', `${A}/notebook`, { append: 'planted' }],
    ['POST', `${A}/schedules`, { every: '1h', text: 'planted' }],
    ['POST', '/schedules/some-schedule/pause', undefined],
    ['POST', '/schedules/some-schedule/resume', undefined],
    ['POST', '/schedules/some-schedule/trigger', undefined],
    ['DELETE', '/schedules/some-schedule', undefined],
    ['POST', `${A}/ag-ui`, agUiRun('r1')],
    ['POST', '/ag-ui', agUiRun('r2')],
    [
      'POST',
      '/mcp',
      { jsonrpc: '2.0', id: 1, method: 'tools/call', params: { name: 'approve_tool_call', arguments: { agent_id: agentId, tool_call_id: toolCallId } } },
    ],
  ];
  for (const [method, path, body] of routes) {
    const json = body === undefined ? undefined : JSON.stringify(body);
    const mcpAccept: Record<string, string> = path === '/mcp' ? { accept: 'application/json, text/event-stream' } : {};
    // What a no-cors fetch from another site sends: its Origin, and no body or a "simple" content type.
    const shapes: Array<[string, Record<string, string>, string | undefined, number]> = [
      ['foreign origin, no body', { origin: EVIL, ...mcpAccept }, undefined, 403],
      ['foreign origin, text/plain', { origin: EVIL, 'content-type': 'text/plain;charset=UTF-8', ...mcpAccept }, json ?? '', 403],
      ['foreign origin, form', { origin: EVIL, 'content-type': 'application/x-www-form-urlencoded', ...mcpAccept }, 'by=page', 403],
      ['foreign origin, JSON', { origin: EVIL, 'content-type': 'application/json', ...mcpAccept }, json ?? '{}', 403],
      ['null origin, text/plain', { origin: 'null', 'content-type': 'text/plain', ...mcpAccept }, json ?? '', 403],
      ['no origin, text/plain', { 'content-type': 'text/plain', ...mcpAccept }, json ?? '', 415],
      ['no origin, no body', { ...mcpAccept }, undefined, 415],
    ];
    for (const [shape, headers, sent, status] of shapes) {
      const res = await send(method, path, headers, sent);
      expect({ method, path, shape, status: res.status }).toEqual({ method, path, shape, status });
      if (path !== '/mcp')
        expect({ path, shape, code: res.body.error.code }).toEqual({ path, shape, code: status === 403 ? 'ORIGIN_NOT_ALLOWED' : 'UNSUPPORTED_MEDIA_TYPE' });
    }
  }
  expect(await fingerprint(agentId)).toEqual(before);
  // Reading is not changing: a foreign page's GET is answered (CORS keeps the answer from that page).
  expect((await send('GET', A, { origin: EVIL })).status).toBe(200);
});

test("the gateway's own page and an allowed origin still change agents, bodyless actions included", async () => {
  const { agentId, toolCallId } = await waitingAgent();
  const A = `/agents/${agentId}`;
  const json = { 'content-type': 'application/json' };
  // The page the gateway serves: its Origin is the gateway's own.
  const own = { ...json, origin: rest.gw.url };
  expect(await send('POST', `${A}/notebook`, own, JSON.stringify({ append: '- from the page\n' }))).toMatchObject({ status: 200 });
  expect(await send('POST', `${A}/tool-calls/${toolCallId}/approve`, own)).toMatchObject({ status: 200 }); // no body, the JSON type
  expect(await send('POST', `${A}/retry`, own)).toMatchObject({ status: 202 });
  // An origin allowed with --cors-origin, its preflight answered.
  const preflight = await fetch(rest.gw.url + `${A}/interrupt`, {
    method: 'OPTIONS',
    headers: { origin: ALLOWED, 'access-control-request-method': 'POST', 'access-control-request-headers': 'content-type' },
  });
  expect(preflight.headers.get('access-control-allow-origin')).toBe(ALLOWED);
  expect(await send('POST', `${A}/interrupt`, { ...json, origin: ALLOWED })).toMatchObject({ status: 200 });
  expect(await send('POST', `${A}/input`, { ...json, origin: ALLOWED }, JSON.stringify({ text: 'plan tea' }))).toMatchObject({ status: 202 });
  // A program (no Origin) with the JSON type, with and without a body.
  expect(await send('POST', `${A}/stop`, json)).toMatchObject({ status: 202, body: { stopping: true } });
  await eventually(async () => (await rest.t.agents.handle(agentId).describe()).status.name === 'COMPLETED', 30_000, 'the agent to stop');
  expect((await rest.t.agents.history(agentId)).some((e) => e.kind === 'widget_write')).toBe(true);
});

test('approval ids cannot be guessed: the same turn in two agents waits under two unrelated ids', async () => {
  const one = await waitingAgent();
  const two = await waitingAgent();
  for (const id of [one.toolCallId, two.toolCallId]) expect(id).toMatch(/^demo_\d+_\d+_[0-9a-f]{16}$/);
  expect(one.toolCallId).not.toBe(two.toolCallId);
  // The id without its random part (what the demo used to give) approves nothing.
  const guessed = one.toolCallId.replace(/_[0-9a-f]{16}$/, '');
  expect(await rest.gw.request('POST', `/agents/${one.agentId}/tool-calls/${guessed}/approve`, {})).toMatchObject({ status: 409 });
  expect((await rest.t.agents.state(one.agentId)).awaitingApproval.map((a) => a.toolCallId)).toEqual([one.toolCallId]);
});
