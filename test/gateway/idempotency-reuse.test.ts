/**
 * An idempotency key is one delivery (issue 26): the same key with the same input is a redelivery
 * (`duplicate: true`, taken once), the same key with another input is refused (409, saying so) — across
 * continue-as-new too — and the prefixes livecontext keys its own inputs with (`ag-ui:`, `schedule:`) are
 * refused from plain input (REST, MCP, CLI) with a 400 that names them. The recorded history replays.
 */
import { cli } from '../support/cli';
import { maybeRecordHistory } from '../support/record-history';
import { replayEveryRun } from '../support/replay-runs';
import { uniqueId } from '../support/temporal';
import { useRestGateway } from './rest-support';

const rest = useRestGateway('idem-reuse');

test('the same key with another body is a 409 that says so; the same body is a redelivery; across continue-as-new', async () => {
  const agentId = uniqueId('webhooks');
  // A small history budget: the agent continues as new every turn or two, and carries its keys.
  await rest.t.agents.start(agentId, { model: 'scripted:echo', historyBudgetBytes: 3_000 });
  const input = (body: unknown, key?: string) =>
    rest.gw.request('POST', `/agents/${agentId}/input?wait=1`, body, key ? { headers: { 'idempotency-key': key } } : {});

  expect(await input({ text: 'order 42 paid' }, 'evt_42')).toMatchObject({ status: 200, body: { inputSeq: 1, outcome: { status: 'answered' } } });
  expect(await rest.gw.request('POST', `/agents/${agentId}/input`, { text: 'order 42 paid' }, { headers: { 'idempotency-key': 'evt_42' } })).toMatchObject({
    status: 202,
    body: { inputSeq: 1, duplicate: true },
  });
  // The key in the body is the same key; the sender is who delivers, not what: a redelivery by hand is one too.
  expect(await rest.gw.request('POST', `/agents/${agentId}/input`, { text: 'order 42 paid', idempotencyKey: 'evt_42', sender: 'ops' })).toMatchObject({
    status: 202,
    body: { inputSeq: 1, duplicate: true },
  });
  const reused = await rest.gw.request('POST', `/agents/${agentId}/input`, { text: 'order 43 refunded' }, { headers: { 'idempotency-key': 'evt_42' } });
  expect(reused).toMatchObject({
    status: 409,
    body: { error: { code: 'IDEMPOTENCY_KEY_REUSED', message: expect.stringMatching(/"evt_42" was taken before, as input #1, for a different input/) } },
  });
  // Same text, other sections or a typed answer: another input.
  expect(
    await rest.gw.request('POST', `/agents/${agentId}/input`, { sections: [{ title: 'Order', content: 'order 42 paid' }], idempotencyKey: 'evt_42' }),
  ).toMatchObject({ status: 409 });

  for (let i = 0; i < 4; i++) expect(await input({ text: `other input ${i}` })).toMatchObject({ status: 200 });
  const runs: string[] = [];
  for await (const wf of rest.t.client.workflow.list({ query: `WorkflowId = '${agentId}'` })) runs.push(wf.runId);
  expect(runs.length).toBeGreaterThan(1); // keys and fingerprints were carried to the new run
  expect(await input({ text: 'order 43 refunded' }, 'evt_42')).toMatchObject({ status: 409, body: { error: { code: 'IDEMPOTENCY_KEY_REUSED' } } });
  expect(await rest.gw.request('POST', `/agents/${agentId}/input`, { text: 'order 42 paid' }, { headers: { 'idempotency-key': 'evt_42' } })).toMatchObject({
    status: 202,
    body: { inputSeq: 1, duplicate: true },
  });
  expect(await input({ text: 'order 43 refunded' }, 'evt_43')).toMatchObject({ status: 200, body: { inputSeq: 6 } });

  // The refused deliveries started no turn and took no number.
  const history = await rest.t.agents.history(agentId);
  expect(history.filter((e) => e.kind === 'model_input').map((e) => e.kind === 'model_input' && e.sections[0].content)).toEqual([
    'order 42 paid',
    'other input 0',
    'other input 1',
    'other input 2',
    'other input 3',
    'order 43 refunded',
  ]);
  expect((await rest.t.agents.state(agentId)).nextInputSeq).toBe(7);

  const replayed = await replayEveryRun(rest.t.client, agentId);
  await maybeRecordHistory(rest.t.client.workflow.getHandle(agentId, replayed[replayed.length - 1]), 'idempotency-fingerprints_v1.json');
}, 180_000);

test('keys with the prefixes of AG-UI runs and schedules are refused from plain input, naming the prefixes', async () => {
  const agentId = uniqueId('plain');
  await rest.t.agents.start(agentId, { model: 'scripted:echo' });
  for (const [body, headers] of [
    [{ text: 'hi' }, { 'idempotency-key': 'ag-ui:run-1' }],
    [{ text: 'hi', idempotencyKey: 'schedule:nightly-2026-11-26T00:00:00Z' }, {}],
    [{ text: 'hi' }, { 'idempotency-key': 'AG-UI:run-1' }],
  ] as const) {
    const res = await rest.gw.request('POST', `/agents/${agentId}/input`, body, { headers });
    expect(res).toMatchObject({
      status: 400,
      body: { error: { code: 'RESERVED_IDEMPOTENCY_KEY', message: expect.stringMatching(/"ag-ui:" or "schedule:"/) } },
    });
  }
  expect((await rest.t.agents.state(agentId)).nextInputSeq).toBe(1); // nothing taken
  // An AG-UI run keys its input so itself, and is taken.
  const run = await fetch(`${rest.gw.url}/agents/${agentId}/ag-ui`, {
    method: 'POST',
    headers: { 'content-type': 'application/json', accept: 'text/event-stream' },
    body: JSON.stringify({
      threadId: agentId,
      runId: 'run-1',
      messages: [{ id: 'm1', role: 'user', content: 'hi' }],
      tools: [],
      context: [],
      state: {},
      forwardedProps: {},
    }),
  });
  expect(run.status).toBe(200);
  await run.body?.cancel();
  expect((await rest.t.agents.state(agentId)).nextInputSeq).toBe(2);
  const r = await cli(['send', agentId, '--idempotency-key', 'schedule:x', 'hi'], { env: { LIVECONTEXT_TASK_QUEUE: rest.t.agents.taskQueue } });
  expect(r).toMatchObject({ code: 2, stderr: expect.stringMatching(/livecontext's own/) });
});
