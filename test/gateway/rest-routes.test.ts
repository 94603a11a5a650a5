/**
 * The REST routes end to end, on the real dev server with a real worker: start, list, status, input
 * (accepted, and waited for), answers, history pages, notebook and tasks, approve/deny, configure,
 * retry, reset, export/import and stop.
 */
import { eventually, uniqueId } from '../support/temporal';
import { answerText, useRestGateway } from './rest-support';

const rest = useRestGateway('rest');

test('start, list, status, input (accepted, then waited for), answers and history pages', async () => {
  const agentId = uniqueId('rest-echo');
  const started = await rest.gw.request('POST', '/agents', { agentId, model: 'scripted:echo' });
  expect(started).toMatchObject({ status: 201, body: { agentId, runId: expect.any(String) } });
  expect(await rest.gw.request('POST', '/agents', { agentId, model: 'scripted:echo' })).toMatchObject({
    status: 409,
    body: { error: { code: 'AGENT_EXISTS' } },
  });

  expect(await rest.gw.request('POST', `/agents/${agentId}/input`, { text: 'hello' })).toMatchObject({ status: 202, body: { inputSeq: 1 } });
  const answer = await rest.gw.request('GET', `/agents/${agentId}/answers/1`);
  expect(answer).toMatchObject({ status: 200, body: { inputSeq: 1, status: 'answered' } });
  expect(answerText(answer.body)).toBe('echo: hello');

  const waited = await rest.gw.request('POST', `/agents/${agentId}/input?wait=1`, { text: 'again', sender: 'tests' });
  expect(waited).toMatchObject({ status: 200, body: { inputSeq: 2, outcome: { status: 'answered', inputSeq: 2 } } });
  expect(answerText(waited.body.outcome)).toBe('echo: again');

  const status = await rest.gw.request('GET', `/agents/${agentId}`);
  expect(status).toMatchObject({
    status: 200,
    body: { runState: 'WaitingInput', blockedOn: 'input', nextInputSeq: 3, config: { model: 'scripted:echo' }, usage: { modelCalls: 2 } },
  });

  // Paged two at a time, the pages put together are the agent's whole history.
  const pages: unknown[][] = [];
  let after = 0;
  for (;;) {
    const page = await rest.gw.request('GET', `/agents/${agentId}/history?after=${after}&limit=2`);
    expect(page.status).toBe(200);
    expect(page.body.entries.length).toBeLessThanOrEqual(2);
    pages.push(page.body.entries);
    if (page.body.nextAfter === null) break;
    after = page.body.nextAfter;
  }
  expect(pages.length).toBeGreaterThan(1);
  expect(pages.flat()).toEqual(await rest.t.agents.history(agentId));
  expect(pages.flat().filter((e) => (e as { kind: string }).kind === 'model_input')).toMatchObject([{ inputSeq: 1 }, { inputSeq: 2, sender: 'tests' }]);

  // Visibility is eventually consistent: the new agent shows up in the list shortly.
  await eventually(
    async () => (await rest.gw.request('GET', '/agents')).body.agents.some((a: { agentId: string }) => a.agentId === agentId),
    20_000,
    'the agent to be listed',
  );
  const listed = await rest.gw.request('GET', '/agents?all=1&limit=1000');
  expect(listed.body.agents.find((a: { agentId: string }) => a.agentId === agentId)).toMatchObject({ status: 'RUNNING' });
});

test('notebook and tasks; a tool call approved, one denied, a decision on a call not pending refused', async () => {
  const agentId = uniqueId('rest-demo');
  expect(await rest.gw.request('POST', '/agents', { agentId, model: 'demo:offline' })).toMatchObject({ status: 201 });

  expect(await rest.gw.request('POST', `/agents/${agentId}/notebook`, { set: '- likes tea\n', by: 'ops' })).toMatchObject({
    status: 200,
    body: { notebook: '- likes tea\n', seq: expect.any(Number) },
  });
  expect(await rest.gw.request('POST', `/agents/${agentId}/notebook`, { append: '- and biscuits\n' })).toMatchObject({
    status: 200,
    body: { notebook: '- likes tea\n- and biscuits\n' },
  });
  expect(await rest.gw.request('GET', `/agents/${agentId}/notebook`)).toMatchObject({ status: 200, body: { notebook: '- likes tea\n- and biscuits\n' } });

  const planned = await rest.gw.request('POST', `/agents/${agentId}/input?wait=1`, { text: 'plan buy milk, call mum' });
  expect(answerText(planned.body.outcome)).toMatch(/Added #1, #2\./);
  expect(await rest.gw.request('GET', `/agents/${agentId}/tasks`)).toMatchObject({
    status: 200,
    body: {
      tasks: [
        { id: 1, title: 'buy milk', status: 'pending' },
        { id: 2, title: 'call mum', status: 'pending' },
      ],
    },
  });

  const filed = await rest.gw.request('POST', `/agents/${agentId}/input?wait=1`, { text: 'call the plumber' });
  const note = filed.body.inputSeq as number;
  expect(answerText(filed.body.outcome)).toMatch(new RegExp(`note-${note}\\.md`));

  // A deletion waits for a person: approved over REST.
  const del = await rest.gw.request('POST', `/agents/${agentId}/input`, { text: `delete note ${note}` });
  expect(del.status).toBe(202);
  const waiting = await eventually(
    async () => (await rest.gw.request('GET', `/agents/${agentId}`)).body.awaitingApproval[0],
    30_000,
    'a call waiting for approval',
  );
  expect(waiting).toMatchObject({ toolName: 'delete_file' });
  expect(await rest.gw.request('POST', `/agents/${agentId}/tool-calls/no-such-call/approve`, {})).toMatchObject({ status: 409 });
  const approved = await rest.gw.request('POST', `/agents/${agentId}/tool-calls/${waiting.toolCallId}/approve`, { by: 'alice' });
  expect(approved.status).toBe(200);
  expect(approved.body.awaitingApproval).toEqual([]);
  expect(answerText((await rest.gw.request('GET', `/agents/${agentId}/answers/${del.body.inputSeq}`)).body)).toMatch(/Deleted/);
  const again = await rest.gw.request('POST', `/agents/${agentId}/tool-calls/${waiting.toolCallId}/approve`);
  expect(again).toMatchObject({ status: 409, body: { error: { code: expect.any(String), message: expect.stringMatching(/pending|not/i) } } });

  // Another one denied, with a reason the model sees.
  const del2 = await rest.gw.request('POST', `/agents/${agentId}/input`, { text: 'delete note 1' });
  const waiting2 = await eventually(async () => (await rest.gw.request('GET', `/agents/${agentId}`)).body.awaitingApproval[0], 30_000, 'a second call waiting');
  expect(await rest.gw.request('POST', `/agents/${agentId}/tool-calls/${waiting2.toolCallId}/deny`, { reason: 'keep it', by: 'bob' })).toMatchObject({
    status: 200,
  });
  expect(answerText((await rest.gw.request('GET', `/agents/${agentId}/answers/${del2.body.inputSeq}`)).body)).toMatch(/Not done.*keep it/s);
});

test('configure, retry, export and import, reset, stop', async () => {
  const agentId = uniqueId('rest-life');
  await rest.gw.request('POST', '/agents', { agentId, model: 'scripted:echo', systemInstruction: 'Be kind.' });
  await rest.gw.request('POST', `/agents/${agentId}/input?wait=1`, { text: 'one' });

  const configured = await rest.gw.request('POST', `/agents/${agentId}/configure`, { systemInstruction: 'Be brief.', params: { temperature: 0.5 } });
  expect(configured).toMatchObject({ status: 200, body: { systemInstruction: 'Be brief.', config: { model: 'scripted:echo', params: { temperature: 0.5 } } } });
  // Not blocked by an error: nothing to retry, nothing sent.
  expect(await rest.gw.request('POST', `/agents/${agentId}/retry`)).toMatchObject({ status: 202, body: { retried: null } });

  const exported = await rest.gw.request('GET', `/agents/${agentId}/export`);
  expect(exported).toMatchObject({ status: 200, body: { format: 'livecontext.agent-snapshot', sourceAgentId: agentId } });
  expect(exported.body.entries).toEqual(await rest.t.agents.history(agentId));
  // Its own id is taken (the agent runs): refused; under another id it starts where the first one was.
  expect(await rest.gw.request('POST', '/agents/import', { snapshot: exported.body })).toMatchObject({
    status: 409,
    body: { error: { code: 'AGENT_EXISTS' } },
  });
  const copyId = uniqueId('rest-copy');
  expect(await rest.gw.request('POST', '/agents/import', { snapshot: exported.body, agentId: copyId })).toMatchObject({
    status: 201,
    body: { agentId: copyId },
  });
  const copyAnswer = await rest.gw.request('POST', `/agents/${copyId}/input?wait=1`, { text: 'two' });
  expect(copyAnswer.body.inputSeq).toBe(2); // the copy numbers on from the original's inputs
  expect(answerText(copyAnswer.body.outcome)).toBe('echo: two');
  expect((await rest.gw.request('GET', `/agents/${copyId}`)).body).toMatchObject({ systemInstruction: 'Be brief.', config: { params: { temperature: 0.5 } } });

  expect(await rest.gw.request('POST', `/agents/${agentId}/reset`)).toMatchObject({ status: 200, body: { reset: true } });
  const afterReset = await rest.gw.request('GET', `/agents/${agentId}/history`);
  expect(afterReset.body.entries.filter((e: { kind: string }) => e.kind !== 'system_instruction')).toEqual([]);

  expect(await rest.gw.request('POST', `/agents/${copyId}/stop`, { reason: 'test over' })).toMatchObject({ status: 202, body: { stopping: true } });
  await eventually(async () => (await rest.t.agents.handle(copyId).describe()).status.name === 'COMPLETED', 30_000, 'the copy to stop');
  await eventually(
    async () => (await rest.gw.request('GET', '/agents?all=1')).body.agents.find((a: { agentId: string }) => a.agentId === copyId)?.status === 'COMPLETED',
    20_000,
    'the stopped agent to be listed as completed',
  );
  // It is still there to read, but takes nothing.
  expect(await rest.gw.request('POST', `/agents/${copyId}/input`, { text: 'anyone?' })).toMatchObject({
    status: 409,
    body: { error: { code: 'AGENT_ENDED' } },
  });
  expect(await rest.gw.request('POST', `/agents/${copyId}/stop`)).toMatchObject({ status: 409, body: { error: { code: 'AGENT_ENDED' } } });
  expect((await rest.gw.request('GET', `/agents/${copyId}/history`)).body.entries.length).toBeGreaterThan(0);
});
