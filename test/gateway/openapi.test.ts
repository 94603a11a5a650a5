/**
 * /openapi.json: an OpenAPI 3.1 document generated from the routes' zod schemas. It parses, lists every
 * REST route of the gateway (and no route it does not serve), every reference in it resolves, and a real
 * response of each kind — success and error — validates against the schema the document gives for it.
 * The schemas alone (each parses, no union lists an alternative twice) are checked by test/unit/api-schemas.test.ts.
 */
import { z } from 'zod';
import { agentsApi } from '../../gateway/routes/agents-routes';
import { eventually, uniqueId } from '../support/temporal';
import { useRestGateway } from './rest-support';

/* eslint-disable @typescript-eslint/no-explicit-any -- the document is read as plain JSON */
const rest = useRestGateway('openapi', { fullToken: 'full-secret', readToken: 'read-secret' });
let doc: any;
beforeAll(async () => {
  const res = await fetch(`${rest.gw.url}/openapi.json`); // no token: the description carries no agent data
  expect(res.status).toBe(200);
  expect(res.headers.get('content-type')).toMatch(/application\/json/);
  doc = JSON.parse(await res.text());
});

/** The routes the gateway serves beside the REST API (SSE, AG-UI, MCP, health): described, not zod-validated. */
const STREAMING = ['GET /agents/{id}/events', 'POST /agents/{id}/ag-ui', 'POST /ag-ui', 'POST /mcp', 'GET /healthz'];

/** The REST routes of the gateway's contract (method and OpenAPI path). */
const CONTRACT = [
  'GET /agents',
  'POST /agents',
  'GET /agents/{id}',
  'GET /agents/{id}/history',
  'GET /agents/{id}/calls/{seq}/request',
  'POST /agents/{id}/input',
  'GET /agents/{id}/answers/{inputSeq}',
  'POST /agents/{id}/tool-calls/{toolCallId}/approve',
  'POST /agents/{id}/tool-calls/{toolCallId}/deny',
  'POST /agents/{id}/tool-calls/{toolCallId}/resolve',
  'POST /agents/{id}/waits/{waitId}',
  'GET /agents/{id}/tool-rules',
  'PUT /agents/{id}/tool-rules',
  'POST /agents/{id}/configure',
  'POST /agents/{id}/retry',
  'POST /agents/{id}/stop',
  'POST /agents/{id}/reset',
  'GET /agents/{id}/export',
  'POST /agents/import',
  'GET /agents/{id}/notebook',
  'POST /agents/{id}/notebook',
  'GET /agents/{id}/tasks',
  'POST /agents/{id}/interrupt',
  'POST /agents/{id}/rewind',
  'GET /agents/{id}/schedules',
  'POST /agents/{id}/schedules',
  'POST /schedules/{scheduleId}/pause',
  'POST /schedules/{scheduleId}/resume',
  'POST /schedules/{scheduleId}/trigger',
  'DELETE /schedules/{scheduleId}',
  'POST /agents/{id}/fork',
  'GET /agents/{id}/forks',
  'POST /agents/{id}/compare',
];

const operations = () => Object.entries(doc.paths).flatMap(([p, item]: [string, any]) => Object.keys(item).map((m) => `${m.toUpperCase()} ${p}`));

test('an OpenAPI 3.1 document of every REST route, and only of routes the gateway serves', () => {
  expect(doc).toMatchObject({ openapi: '3.1.0', info: { title: expect.any(String), version: expect.any(String) }, security: [{ bearer: [] }] });
  expect(doc.components.securitySchemes.bearer).toMatchObject({ type: 'http', scheme: 'bearer' });
  expect(operations().sort()).toEqual([...CONTRACT, ...STREAMING].sort());
  // The same table registers the routes: each registered route is described, each described one registered.
  const registered = agentsApi(rest.t.agents).routes.map((r) => `${r.method} ${r.path.replace(/:(\w+)/g, '{$1}')}`);
  expect([...new Set(registered)].sort()).toEqual([...CONTRACT].sort());

  for (const [p, item] of Object.entries(doc.paths) as Array<[string, any]>) {
    for (const [method, op] of Object.entries(item) as Array<[string, any]>) {
      const where = `${method.toUpperCase()} ${p}`;
      expect({ where, summary: typeof op.summary }).toEqual({ where, summary: 'string' });
      if (STREAMING.includes(where)) continue; // their answers are SSE or JSON-RPC
      const ok = Object.keys(op.responses).filter((s) => s.startsWith('2'));
      expect({ where, ok: ok.length > 0 }).toEqual({ where, ok: true });
      for (const s of ok) expect(op.responses[s].content['application/json'].schema).toBeDefined();
      expect(op.responses['400'].content['application/json'].schema).toEqual({ $ref: '#/components/schemas/Error' });
      if (method !== 'get') expect({ where, has403: '403' in op.responses }).toEqual({ where, has403: true });
      // Path parameters are described, with their schemas.
      for (const name of [...p.matchAll(/\{(\w+)\}/g)].map((m) => m[1])) {
        expect(op.parameters.find((x: any) => x.in === 'path' && x.name === name)).toMatchObject({ required: true, schema: expect.any(Object) });
      }
    }
  }
  expect(doc.paths['/agents/{id}/input'].post.parameters.find((x: any) => x.in === 'header')).toMatchObject({ name: 'idempotency-key', required: false });
  expect(doc.paths['/agents/{id}/input'].post.requestBody.content['application/json'].schema).toEqual({ $ref: '#/components/schemas/AgentInput' });

  // Every reference resolves.
  const refs = [...JSON.stringify(doc).matchAll(/"\$ref":"#\/components\/schemas\/([^"]+)"/g)].map((m) => m[1]);
  expect(refs.length).toBeGreaterThan(10);
  for (const name of new Set(refs)) expect({ name, defined: name in doc.components.schemas }).toEqual({ name, defined: true });
});

/** A zod validator built from the document's JSON schema for one response (its references as $defs). */
function responseValidator(method: string, path: string, status: number) {
  const response = doc.paths[path]?.[method.toLowerCase()]?.responses?.[String(status)];
  if (!response) throw new Error(`The document has no ${status} response for ${method} ${path}.`);
  const local = (x: unknown) => JSON.parse(JSON.stringify(x).replaceAll('#/components/schemas/', '#/$defs/'));
  return z.fromJSONSchema({ ...local(response.content['application/json'].schema), $defs: local(doc.components.schemas) });
}

test('the event stream, AG-UI, /mcp and /healthz are described too', () => {
  expect(doc.paths['/agents/{id}/events'].get.responses['200'].content['text/event-stream']).toBeDefined();
  expect(doc.paths['/agents/{id}/events'].get.parameters.map((x: any) => `${x.in} ${x.name}`).sort()).toEqual([
    'header last-event-id',
    'path id',
    'query after',
  ]);
  expect(doc.paths['/ag-ui'].post.requestBody.content['application/json'].schema).toEqual({ $ref: '#/components/schemas/RunAgentInput' });
  expect(doc.paths['/mcp'].post.responses['403']).toBeDefined();
  expect(doc.paths['/healthz'].get).toMatchObject({ security: [], responses: { 200: expect.any(Object) } });
});

/** Sends a request and checks its answer against the document's schema for that route and status. */
async function valid(method: string, template: string, path: string, status: number, body?: unknown, token = 'full-secret') {
  const res = await rest.gw.request(method, path, body, { token });
  expect({ method, path, status: res.status, body: res.status === status ? 'as expected' : res.body }).toEqual({ method, path, status, body: 'as expected' });
  const parsed = responseValidator(method, template, status).safeParse(res.body);
  expect({ method, template, status, issues: parsed.success ? [] : parsed.error.issues }).toEqual({ method, template, status, issues: [] });
  return res.body;
}

test('a real response of each kind validates against its schema in the document', async () => {
  const id = uniqueId('doc');
  const A = '/agents/{id}';
  await valid('POST', '/agents', '/agents', 201, { agentId: id, model: 'demo:offline', systemInstruction: 'Be helpful.' });
  await valid('POST', `${A}/input`, `/agents/${id}/input`, 202, { text: 'plan buy milk, call mum' });
  await valid('GET', `${A}/answers/{inputSeq}`, `/agents/${id}/answers/1`, 200);
  const { entries } = (await rest.gw.request('GET', `/agents/${id}/history`, undefined, { token: 'read-secret' })).body;
  const call = entries.find((e: any) => e.kind === 'model_output');
  // The demo model has no wire request: the call recorded no fingerprint; it is rendered from history, and that is said.
  const inspected = await valid('GET', `${A}/calls/{seq}/request`, `/agents/${id}/calls/${call.seq}/request?short=1`, 200, undefined, 'read-secret');
  expect(inspected).toMatchObject({ seq: call.seq, reproduced: false, rendered: { model: 'demo:offline' } });
  expect(inspected.warnings.join('\n')).toMatch(/recorded no fingerprint[^]*has no wire request/);
  await valid('GET', `${A}/calls/{seq}/request`, `/agents/${id}/calls/1/request`, 400);
  await valid('POST', `${A}/input`, `/agents/${id}/input?wait=1`, 200, { text: 'remember tea with null metadata' });
  await valid('GET', `${A}/notebook`, `/agents/${id}/notebook`, 200);
  await valid('POST', `${A}/notebook`, `/agents/${id}/notebook`, 200, { append: '- and biscuits\n', by: 'ops' });
  await valid('GET', `${A}/tasks`, `/agents/${id}/tasks`, 200);
  await valid('POST', `${A}/input`, `/agents/${id}/input`, 202, { text: 'delete note 9' });
  const waiting = await eventually(
    async () => (await rest.gw.request('GET', `/agents/${id}`, undefined, { token: 'full-secret' })).body.awaitingApproval[0],
    30_000,
    'an approval',
  );
  const status = await valid('GET', A, `/agents/${id}`, 200); // with a call waiting for approval
  expect(status.awaitingApproval).toHaveLength(1);
  // Resolve is for a call whose outcome is unknown, not one waiting for approval.
  const notUnknown = await valid('POST', `${A}/tool-calls/{toolCallId}/resolve`, `/agents/${id}/tool-calls/${waiting.toolCallId}/resolve`, 409, { done: 'x' });
  expect(notUnknown).toMatchObject({ error: { code: 'OUTCOME_NOT_UNKNOWN' } });
  await valid('POST', `${A}/tool-calls/{toolCallId}/resolve`, `/agents/${id}/tool-calls/${waiting.toolCallId}/resolve`, 400, { done: 'x', retry: true });
  await valid('POST', `${A}/tool-calls/{toolCallId}/deny`, `/agents/${id}/tool-calls/${waiting.toolCallId}/deny`, 200, { reason: 'not now' });
  await valid('POST', `${A}/tool-calls/{toolCallId}/approve`, `/agents/${id}/tool-calls/${waiting.toolCallId}/approve`, 409, {});
  const waitPath = `/agents/${id}/waits/${encodeURIComponent(status.waits[0].waitId)}`;
  const late = await valid('POST', `${A}/waits/{waitId}`, waitPath, 409, { answer: { approved: true } });
  expect(late).toMatchObject({ error: { code: 'ALREADY_ANSWERED', message: expect.stringMatching(/already answered by rest at /) } });
  await valid('POST', `${A}/waits/{waitId}`, `/agents/${id}/waits/nonsense`, 404, { answer: { approved: true } });
  await valid('PUT', `${A}/tool-rules`, `/agents/${id}/tool-rules`, 200, { rules: [{ tool: 'delete_*', action: 'ask' }], by: 'ops' });
  await valid('PUT', `${A}/tool-rules`, `/agents/${id}/tool-rules`, 400, { rules: [{ tool: 'x', action: 'maybe' }] });
  expect(await valid('GET', `${A}/tool-rules`, `/agents/${id}/tool-rules`, 200)).toEqual({ rules: [{ tool: 'delete_*', action: 'ask' }] });
  // Waited for: the answer comes once the call is approved (the note is not there: the tool fails, the turn ends).
  const waited = valid('POST', `${A}/input`, `/agents/${id}/input?wait=1`, 200, { text: 'delete note 8' });
  const second = await eventually(
    async () => (await rest.gw.request('GET', `/agents/${id}`, undefined, { token: 'full-secret' })).body.awaitingApproval[0],
    30_000,
    'a second approval',
  );
  await valid('POST', `${A}/tool-calls/{toolCallId}/approve`, `/agents/${id}/tool-calls/${second.toolCallId}/approve`, 200, { by: 'ops' });
  expect(await waited).toMatchObject({ outcome: { status: 'answered' } });
  const history = await valid('GET', `${A}/history`, `/agents/${id}/history`, 200);
  expect(new Set(history.entries.map((e: any) => e.kind))).toEqual(
    new Set(['system_instruction', 'model_input', 'model_output', 'tool_results', 'widget_write', 'tool_rules']),
  );
  await valid('GET', `${A}/history`, `/agents/${id}/history?after=2&limit=3`, 200);
  await valid('POST', `${A}/configure`, `/agents/${id}/configure`, 200, { params: { temperature: 0.2 }, tools: ['write_file', 'todo_add'] });
  await valid('POST', `${A}/retry`, `/agents/${id}/retry`, 202);
  const snapshot = await valid('GET', `${A}/export`, `/agents/${id}/export`, 200);
  await valid('POST', '/agents/import', '/agents/import', 201, { snapshot, agentId: uniqueId('doc-copy') });
  await eventually(
    async () => (await rest.gw.request('GET', '/agents', undefined, { token: 'read-secret' })).body.agents.some((a: any) => a.agentId === id),
    20_000,
    'the agent listed',
  );
  await valid('GET', '/agents', '/agents?all=1', 200, undefined, 'read-secret');
  await valid('POST', '/agents', '/agents', 409, { agentId: id, model: 'demo:offline' });
  await valid('POST', `${A}/reset`, `/agents/${id}/reset`, 200);
  await valid('POST', `${A}/stop`, `/agents/${id}/stop`, 202, { reason: 'done' });
  await eventually(async () => (await rest.t.agents.handle(id).describe()).status.name === 'COMPLETED', 30_000, 'the agent to stop');

  // Errors, in the one shape the document gives them.
  await valid('POST', `${A}/input`, `/agents/${id}/input`, 400, { text: 1 });
  await valid('GET', A, `/agents/${id}`, 401, undefined, 'wrong');
  await valid('POST', `${A}/input`, `/agents/${id}/input`, 403, { text: 'hi' }, 'read-secret');
  await valid('GET', A, `/agents/${uniqueId('ghost')}`, 404);
  await valid('POST', `${A}/input`, `/agents/${id}/input`, 409, { text: 'after the end' }); // AGENT_ENDED
});

test('the validators built from the document refuse what does not match', () => {
  expect(responseValidator('GET', '/agents/{id}', 200).safeParse({}).success).toBe(false);
  expect(
    responseValidator('GET', '/agents/{id}/history', 200).safeParse({ entries: [{ seq: 1, timestamp: 't', kind: 'nope' }], nextAfter: null, lastSeq: 1 })
      .success,
  ).toBe(false);
  expect(responseValidator('POST', '/agents/{id}/input', 202).safeParse({ inputSeq: 0 }).success).toBe(false);
  expect(responseValidator('POST', '/agents/{id}/input', 202).safeParse({ inputSeq: 3, duplicate: true }).success).toBe(true);
  // A JSON value with nulls at any depth is a JSON value (metadata).
  const entry = { seq: 1, timestamp: 't', kind: 'model_input', sections: [{ title: 'Input', content: 'x' }], metadata: { a: [null, { b: null }], c: null } };
  expect(responseValidator('GET', '/agents/{id}/history', 200).safeParse({ entries: [entry], nextAfter: null, lastSeq: 1 }).success).toBe(true);
  expect(responseValidator('GET', '/agents/{id}', 404).safeParse({ error: { code: 'AGENT_NOT_FOUND', message: 'm' } }).success).toBe(true);
  expect(responseValidator('GET', '/agents/{id}', 404).safeParse({ message: 'm' }).success).toBe(false);
});

test('fork, forks and compare answer as the document says', async () => {
  const id = uniqueId('doc-fork');
  const A = '/agents/{id}';
  await valid('POST', '/agents', '/agents', 201, { agentId: id, model: 'scripted:echo' });
  await valid('POST', `${A}/input`, `/agents/${id}/input?wait=1`, 200, { text: 'first' });
  await valid('POST', `${A}/input`, `/agents/${id}/input?wait=1`, 200, { text: 'second' });
  const history = (await rest.t.agents.history(id)) as Array<{ seq: number; kind: string }>;
  const end = history.find((e) => e.kind === 'model_output')!.seq;
  const input = history.filter((e) => e.kind === 'model_input')[1].seq;
  const forked = await valid('POST', `${A}/fork`, `/agents/${id}/fork`, 201, { at: end, as: `${id}-f` });
  expect(forked).toMatchObject({ agentId: `${id}-f`, point: 'turn_end', forkedFrom: { agentId: id, seq: end } });
  const forkState = (await rest.gw.request('GET', `/agents/${id}-f`, undefined, { token: 'read-secret' })).body;
  expect(forkState.config.forkedFrom).toMatchObject({ agentId: id, seq: end });
  await eventually(
    async () => (await rest.gw.request('GET', `/agents/${id}/forks`, undefined, { token: 'read-secret' })).body.forks?.length === 1,
    30_000,
    'the fork listed',
  );
  await valid('GET', `${A}/forks`, `/agents/${id}/forks`, 200, undefined, 'read-secret');
  const compared = await valid('POST', `${A}/compare`, `/agents/${id}/compare`, 200, { at: input, models: ['scripted:echo', 'demo:offline'] });
  expect(compared.results.map((r: any) => [r.model, r.status])).toEqual([
    ['scripted:echo', 'answered'],
    ['demo:offline', 'answered'],
  ]);
  // Bad input: the reason, and no agent.
  const bad = await valid('POST', `${A}/fork`, `/agents/${id}/fork`, 400, { at: history.length + 5, as: `${id}-g` });
  expect(bad.error.code).toBe('BAD_FORK_POINT');
  await valid('POST', `${A}/fork`, `/agents/${id}-nobody/fork`, 404, { at: 1, as: `${id}-g` });
  await valid('POST', `${A}/fork`, `/agents/${id}/fork`, 409, { at: end, as: `${id}-f` });
  expect((await rest.gw.request('GET', `/agents/${id}-g`, undefined, { token: 'read-secret' })).status).toBe(404);
});
