/**
 * What an agent id may be, at every door (issue 26): a lone surrogate, NUL, ESC or another control
 * character is refused with a clear 400 (REST, AG-UI, the event stream) or error (AgentClient, the CLI)
 * before anything reaches Temporal; `POST /ag-ui` with an empty threadId is a 400, not a 500.
 */
import { InputRejectedError } from '../../agent/index';
import { cli } from '../support/cli';
import { startTestGateway, type TestGateway } from '../support/gateway';
import { connectTest, type TestContext, uniqueId } from '../support/temporal';

let t: TestContext;
let gw: TestGateway;
beforeAll(async () => {
  t = await connectTest(uniqueId('agent-ids'));
  gw = await startTestGateway(t.agents);
});
afterAll(async () => {
  await gw?.close();
  await t?.close();
});

const BAD: Array<[string, string, RegExp]> = [
  ['a lone surrogate', 'agent-\ud800', /lone surrogate/],
  ['a lone low surrogate', '\udc00agent', /lone surrogate/],
  ['NUL', 'agent\u0000x', /control characters/],
  ['ESC (a terminal sequence)', 'agent\u001b[2Jx', /control characters/],
  ['DEL', 'agent\u007f', /control characters/],
  ['a C1 control (CSI)', 'agent\u009b31m', /control characters/],
  ['a text direction override', 'agent\u202etxt.exe', /control characters/],
  ['a line separator', 'agent\u2028x', /control characters/],
];

test('POST /agents and /agents/import refuse such ids with a 400 that says why', async () => {
  for (const [what, agentId, why] of BAD) {
    const res = await gw.request('POST', '/agents', { agentId, model: 'demo:offline' });
    expect({ what, status: res.status, code: res.body.error?.code }).toEqual({ what, status: 400, code: 'BAD_REQUEST' });
    expect({ what, message: res.body.error.message }).toEqual({ what, message: expect.stringMatching(why) });
    const imported = await gw.request('POST', '/agents/import', { snapshot: {}, agentId });
    expect({ what, status: imported.status }).toEqual({ what, status: 400 });
  }
});

test('paths with such ids get a 400 on every route, the event stream and AG-UI included', async () => {
  for (const path of ['/agents/a%1Bb', '/agents/a%00b/history', '/agents/%1B%5B2J/events', '/agents/a%C2%9Bb/export']) {
    const res = await gw.request('GET', path);
    expect({ path, status: res.status, code: res.body.error?.code }).toEqual({
      path,
      status: 400,
      code: expect.stringMatching(/^(BAD_REQUEST|BAD_AGENT_ID)$/),
    });
  }
  for (const path of ['/agents/a%1Bb/input', '/agents/a%00b/stop']) {
    expect({ path, status: (await gw.request('POST', path, { text: 'hi' })).status }).toEqual({ path, status: 400 });
  }
  const run = (threadId: string) => ({
    threadId,
    runId: uniqueId('run'),
    messages: [{ id: 'm1', role: 'user', content: 'hi' }],
    tools: [],
    context: [],
    state: {},
    forwardedProps: {},
  });
  expect(await gw.request('POST', '/ag-ui', run(''))).toMatchObject({
    status: 400,
    body: { error: { code: 'BAD_AGENT_ID', message: expect.stringMatching(/threadId.*not empty/) } },
  });
  expect(await gw.request('POST', '/ag-ui', run('a\u001bb'))).toMatchObject({
    status: 400,
    body: { error: { code: 'BAD_AGENT_ID', message: expect.stringMatching(/control characters/) } },
  });
  expect(await gw.request('POST', '/ag-ui', run('x\ud800'))).toMatchObject({ status: 400, body: { error: { code: 'BAD_AGENT_ID' } } });
  expect(await gw.request('POST', '/agents/a%1Bb/ag-ui', run('t'))).toMatchObject({ status: 400, body: { error: { code: 'BAD_AGENT_ID' } } });
  // An ordinary unknown id is still a plain 404.
  const ghost = uniqueId('ghost');
  expect(await gw.request('POST', '/ag-ui', run(ghost))).toMatchObject({
    status: 404,
    body: { error: { code: 'AGENT_NOT_FOUND', message: `No agent "${ghost}" in this namespace.` } },
  });
});

test('AgentClient refuses them (start, restore, a schedule that starts its agent), naming the id escaped', async () => {
  for (const [what, agentId, why] of BAD) {
    const err = await t.agents.start(agentId, { model: 'demo:offline' }).catch((e: unknown) => e);
    expect({ what, isRejection: err instanceof InputRejectedError, code: (err as InputRejectedError).code }).toEqual({
      what,
      isRejection: true,
      code: 'BAD_AGENT_ID',
    });
    expect({ what, message: (err as Error).message }).toEqual({ what, message: expect.stringMatching(why) });
    expect((err as Error).message).not.toMatch(/[\u0000-\u001f\u007f-\u009f\u202e\ud800-\udfff]/); // printed escaped
  }
  await expect(t.agents.restore('copy\u001b', {} as never)).rejects.toMatchObject({ code: 'BAD_AGENT_ID' }); // before the snapshot is read
  await expect(t.agents.schedules.add('s\u001bx', { every: '1h', text: 'hi', startIfMissing: { model: 'demo:offline' } })).rejects.toMatchObject({
    code: 'BAD_AGENT_ID',
  });
});

test('livecontext start refuses an id with ESC, saying why, and exits 2', async () => {
  const r = await cli(['start', 'bad\u001b[2Jid', '--model', 'demo:offline'], { env: { LIVECONTEXT_TASK_QUEUE: t.agents.taskQueue } });
  expect(r.code).toBe(2);
  expect(r.stderr).toMatch(/cannot be an agent id: an agent id has no control characters/);
  expect(r.stderr).not.toContain('\u001b'); // the id is printed escaped
});
