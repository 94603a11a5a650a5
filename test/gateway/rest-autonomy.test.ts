/** REST for issue 17's autonomy: interrupting a turn, and schedules that feed an agent. Real dev server, in-process worker, demo model. */
import { startTestGateway, type TestGateway } from '../support/gateway';
import { connectTest, eventually, type TestContext, uniqueId, withWorker } from '../support/temporal';

let t: TestContext;
let gw: TestGateway;
const taskQueue = uniqueId('rest-autonomy');
beforeAll(async () => {
  t = await connectTest(taskQueue);
  gw = await startTestGateway(t.agents, { fullToken: 'full', readToken: 'read' });
});
afterAll(async () => {
  await gw?.close();
  await t?.close();
});
const as = { token: 'full' };

test('POST /agents/:id/interrupt ends a running turn; schedules are added, listed, fired, paused and deleted', async () => {
  await withWorker({ taskQueue, workspaceRoot: `/tmp/lc-rest-autonomy-${Date.now()}` }, async () => {
    const agentId = uniqueId('autonomous');
    expect(await gw.request('POST', '/agents', { agentId, model: 'demo:offline' }, as)).toMatchObject({ status: 201 });
    const { body: accepted } = await gw.request('POST', `/agents/${agentId}/input`, { text: 'sleep 60' }, as);
    await eventually(async () => (await t.agents.state(agentId)).runState === 'WaitingToolResults', 30_000, 'the timer to run');
    expect(await gw.request('POST', `/agents/${agentId}/interrupt`, { by: 'ops' }, { token: 'read' })).toMatchObject({ status: 403 });
    // Aimed at an input not running yet: refused, the turn goes on.
    expect(await gw.request('POST', `/agents/${agentId}/interrupt`, { by: 'ops', inputSeq: accepted.inputSeq + 1 }, as)).toMatchObject({
      status: 409,
      body: { error: { code: 'NOT_RUNNING' } },
    });
    expect(await gw.request('POST', `/agents/${agentId}/interrupt`, { by: 'ops', inputSeq: accepted.inputSeq }, as)).toMatchObject({
      status: 200,
      body: { interrupted: true },
    });
    expect(await gw.request('GET', `/agents/${agentId}/answers/${accepted.inputSeq}`, undefined, as)).toMatchObject({
      status: 200,
      body: { status: 'interrupted', by: 'ops' },
    });
    expect(await gw.request('POST', `/agents/${agentId}/interrupt`, undefined, as)).toMatchObject({ status: 200, body: { interrupted: false } });

    const added = await gw.request('POST', `/agents/${agentId}/schedules`, { every: '1h', text: 'remember the daily check' }, as);
    expect(added).toMatchObject({ status: 201, body: { agentId, when: 'every 1h', paused: false, text: 'remember the daily check' } });
    const { scheduleId } = added.body;
    expect(await gw.request('GET', `/agents/${agentId}/schedules`, undefined, { token: 'read' })).toMatchObject({
      status: 200,
      body: { schedules: [{ scheduleId }] },
    });
    expect(await gw.request('POST', `/schedules/${scheduleId}/trigger`, undefined, as)).toMatchObject({ status: 200 });
    await eventually(async () => (await t.agents.state(agentId)).notebook.includes('the daily check'), 30_000, 'the scheduled input answered');
    expect(await gw.request('POST', `/schedules/${scheduleId}/pause`, undefined, as)).toMatchObject({ status: 200 });
    expect(await gw.request('GET', `/agents/${agentId}/schedules`, undefined, as)).toMatchObject({ body: { schedules: [{ scheduleId, paused: true }] } });
    expect(await gw.request('DELETE', `/schedules/${scheduleId}`, undefined, as)).toMatchObject({ status: 200 });
    expect(await gw.request('DELETE', `/schedules/${scheduleId}`, undefined, as)).toMatchObject({
      status: 404,
      body: { error: { code: 'SCHEDULE_NOT_FOUND' } },
    });
    expect(await gw.request('POST', `/agents/${agentId}/schedules`, { text: 'no time given' }, as)).toMatchObject({
      status: 400,
      body: { error: { code: 'BAD_SCHEDULE' } },
    });
  });
});
