/**
 * AG-UI 1.0 interrupts through @ag-ui/client's HttpAgent, on the real dev server through the gateway: a
 * run that reaches an approval ends with the interrupt outcome (its id the agent's wait id); a run whose
 * `resume` approves it streams the rest of the turn to its answer; a resume of the answered wait is
 * refused naming who answered. A question (`ask_user`) interrupts the same way and a resume with text
 * is the reply. And the same pending approval answered at once through REST, an AG-UI resume and an A2A
 * reply: one decision in history, two refusals naming the first door.
 */
import { mkdtempSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { type BaseEvent, HttpAgent } from '@ag-ui/client';
import { SendMessageRequest, TaskState } from '@a2a-js/sdk';
import { ScriptedModelProvider } from '../../activities/index';
import type { HistoryEntry, ToolResultsEntry } from '../../agent/index';
import { batchScript } from '../fixtures/scripts';
import { deployTool } from '../fixtures/test-tools';
import { a2aClient } from '../support/a2a-client';
import { startTestGateway, type TestGateway } from '../support/gateway';
import { connectTest, eventually, type TestContext, uniqueId, withWorker } from '../support/temporal';
import { TOOL_CALL, TEXT_MESSAGE } from '../fixtures/ag-ui-events';

let t: TestContext;
let gateway: TestGateway;
let stopWorker: () => void;
let worker: Promise<void>;
const TOKEN = `agui-${uniqueId('tok')}`;
const taskQueue = uniqueId('gw-agui-int');

beforeAll(async () => {
  t = await connectTest(taskQueue);
  const models = [
    new ScriptedModelProvider({
      deploy: batchScript([{ name: 'deploy', args: { service: 'api', env: 'prod' } }]),
      ask: (req) => (req.step === 0 ? { toolCalls: [{ name: 'ask_user', args: { question: 'Which service?' } }] } : { text: 'deploying the one you said' }),
    }),
  ];
  const workspaceRoot = mkdtempSync(path.join(tmpdir(), 'lc-agui-int-'));
  worker = withWorker({ taskQueue, workspaceRoot, tools: [deployTool], models }, () => new Promise<void>((resolve) => (stopWorker = resolve)));
  gateway = await startTestGateway(t.agents, { fullToken: TOKEN });
  // An AG-UI run refuses to start a turn no worker would take: wait for the worker to poll.
  await eventually(async () => (await t.agents.workerStatus(taskQueue)).polling, 60_000, 'the worker to poll');
});
afterAll(async () => {
  await gateway?.close();
  stopWorker?.();
  await worker;
  await t?.close();
});

const auth = { authorization: `Bearer ${TOKEN}` };
const toolResults = (entries: HistoryEntry[]) => entries.filter((e): e is ToolResultsEntry => e.kind === 'tool_results');

/** Event types in order, state events left out. */
const shape = (events: BaseEvent[]) => events.filter((e) => e.type !== 'STATE_SNAPSHOT' && e.type !== 'STATE_DELTA').map((e) => String(e.type));

/** Runs `agent` once, collecting its events; a run that fails (RUN_ERROR) resolves too, its error among them. */
async function run(agent: HttpAgent, params: Parameters<HttpAgent['runAgent']>[0]) {
  const events: BaseEvent[] = [];
  const done = await agent.runAgent(params, { onEvent: ({ event }) => void events.push(event) }).then(
    (r) => ({ result: r.result as Record<string, unknown> | undefined, error: undefined }),
    (error: Error) => ({ result: undefined, error }),
  );
  return { ...done, events };
}

test('HttpAgent: an approval interrupts the run, a resume approves it and the run streams the answer; a second resume is refused naming the first', async () => {
  const agentId = uniqueId('agui-int');
  await t.agents.start(agentId, { model: 'scripted:deploy' });
  const agent = new HttpAgent({ url: `${gateway.url}/ag-ui`, threadId: agentId, headers: auth });
  agent.addMessage({ id: 'user-1', role: 'user', content: 'deploy api to prod' });

  const first = await run(agent, { runId: uniqueId('run') });
  expect(shape(first.events)).toEqual(['RUN_STARTED', ...TOOL_CALL, 'RUN_FINISHED']);
  const waitId = (await t.agents.state(agentId)).waits![0].waitId;
  expect(waitId).toMatch(/^approval-\d+-call_0_0$/);
  expect(first.events.at(-1)).toMatchObject({
    type: 'RUN_FINISHED',
    outcome: {
      type: 'interrupt',
      interrupts: [
        {
          id: waitId,
          reason: 'tool_call',
          toolCallId: 'call_0_0',
          message: 'Approve deploy({"service":"api","env":"prod"})? deploys to prod need approval.',
          responseSchema: { required: ['approved'] },
          metadata: { livecontext: { kind: 'approval', toolName: 'deploy', arguments: '{"service":"api","env":"prod"}' } },
        },
      ],
    },
  });
  expect(agent.pendingInterrupts.map((i) => i.id)).toEqual([waitId]);
  expect(first.result).toBeUndefined(); // not a success

  // A plain run now is refused by the client itself: the thread has a pending interrupt.
  await expect(agent.runAgent({ runId: uniqueId('run') })).rejects.toThrow(/pending interrupt/);

  // The resume approves it: the same turn goes on in the new run, to its answer.
  const second = await run(agent, {
    runId: uniqueId('run'),
    resume: [{ interruptId: waitId, status: 'resolved', payload: { approved: true }, metadata: { by: 'ana' } }],
  });
  expect(second.error).toBeUndefined();
  expect(shape(second.events)).toEqual(['RUN_STARTED', 'TOOL_CALL_RESULT', ...TEXT_MESSAGE, 'RUN_FINISHED']);
  expect(second.events.find((e) => e.type === 'TOOL_CALL_RESULT')).toMatchObject({ toolCallId: 'call_0_0', content: 'deployed api to prod' });
  expect(second.events.at(-1)).not.toHaveProperty('outcome.type', 'interrupt');
  expect(second.result).toMatchObject({ inputSeq: 1 });
  expect(agent.pendingInterrupts).toEqual([]);
  expect(agent.messages.at(-1)).toMatchObject({ role: 'assistant', content: expect.stringMatching(/^saw \d+ messages$/) });
  expect((await t.agents.state(agentId)).nextInputSeq).toBe(2); // the resume sent no input

  const [results] = toolResults(await t.agents.history(agentId));
  expect(results.results[0].metadata?.decision).toMatchObject({ approved: true, door: 'ag-ui', by: 'ana' });

  // The same wait resumed again (a second tab): RUN_ERROR naming who answered first; nothing changes.
  const late = await run(agent, { runId: uniqueId('run'), resume: [{ interruptId: waitId, status: 'resolved', payload: { approved: false } }] });
  const error = late.events.find((e) => e.type === 'RUN_ERROR');
  expect(error).toMatchObject({
    code: 'ALREADY_ANSWERED',
    message: expect.stringMatching(new RegExp(`^Wait ${waitId} was already answered by ag-ui / ana at \\d{4}-`)),
  });
  expect(toolResults(await t.agents.history(agentId))).toHaveLength(1);
});

test('HttpAgent: an ask_user question interrupts the run; a resume with text is the reply, and the run streams its answer', async () => {
  const agentId = uniqueId('agui-ask');
  await t.agents.start(agentId, { model: 'scripted:ask' });
  const agent = new HttpAgent({ url: `${gateway.url}/agents/${agentId}/ag-ui`, threadId: agentId, headers: auth });
  agent.addMessage({ id: 'user-1', role: 'user', content: 'deploy something' });

  const first = await run(agent, { runId: uniqueId('run') });
  const [interrupt] = agent.pendingInterrupts;
  expect(interrupt).toMatchObject({ id: expect.stringMatching(/^question-\d+$/), reason: 'input_required', message: 'Which service?' });
  expect(first.events.at(-1)).toMatchObject({ type: 'RUN_FINISHED', outcome: { type: 'interrupt' }, result: { inputSeq: 1, waits: [interrupt.id] } });

  // A payload that is not an answer to a question: RUN_ERROR, and the question stays open.
  const bad = await run(agent, { runId: uniqueId('run'), resume: [{ interruptId: interrupt.id, status: 'resolved', payload: { approved: true } }] });
  expect(bad.events.find((e) => e.type === 'RUN_ERROR')).toMatchObject({ code: 'BAD_ANSWER' });
  expect((await t.agents.state(agentId)).waits).toEqual([expect.objectContaining({ waitId: interrupt.id })]);

  const second = await run(agent, { runId: uniqueId('run'), resume: [{ interruptId: interrupt.id, status: 'resolved', payload: { text: 'api' } }] });
  expect(second.error).toBeUndefined();
  expect(shape(second.events)).toEqual(['RUN_STARTED', ...TEXT_MESSAGE, 'RUN_FINISHED']);
  expect(second.result).toMatchObject({ inputSeq: 2 });
  expect(agent.messages.at(-1)).toMatchObject({ role: 'assistant', content: 'deploying the one you said' });
  const inputs = (await t.agents.history(agentId)).filter((e) => e.kind === 'model_input');
  expect(inputs.map((e) => (e.kind === 'model_input' ? [e.inputSeq, e.sections.map((s) => s.content).join(''), e.answers?.door] : []))).toEqual([
    [1, 'deploy something', undefined],
    [2, 'api', 'ag-ui'],
  ]);
});

test('the same pending approval answered at once through REST, an AG-UI resume and an A2A reply: one decision in history, two refusals naming the first door', async () => {
  const agentId = uniqueId('agui-race');
  await t.agents.start(agentId, { model: 'scripted:deploy' });
  const agent = new HttpAgent({ url: `${gateway.url}/ag-ui`, threadId: agentId, headers: auth });
  agent.addMessage({ id: 'user-1', role: 'user', content: 'deploy api to prod' });
  await run(agent, { runId: uniqueId('run') });
  const [interrupt] = agent.pendingInterrupts;
  const waitId = interrupt.id;
  const a2a = await a2aClient(gateway.url, agentId, TOKEN);
  const task = await a2a.getTask({ id: `turn-1@${agentId}`, tenant: '' });
  expect(task.status?.state).toBe(TaskState.TASK_STATE_INPUT_REQUIRED);

  interface Door {
    door: string;
    ok: boolean;
    text?: string;
  }
  const doors: Door[] = await Promise.all([
    gateway
      .request('POST', `/agents/${agentId}/waits/${encodeURIComponent(waitId)}`, { answer: { approved: true }, by: 'ana' }, { token: TOKEN })
      .then((r) => (r.status === 200 ? { door: 'rest', ok: true } : { door: 'rest', ok: false, text: `${r.body.error.code}: ${r.body.error.message}` })),
    run(agent, { runId: uniqueId('run'), resume: [{ interruptId: waitId, status: 'resolved', payload: { approved: true }, metadata: { by: 'bob' } }] }).then(
      (r) => {
        const error = r.events.find((e) => e.type === 'RUN_ERROR') as { code?: string; message?: string } | undefined;
        return error ? { door: 'ag-ui', ok: false, text: `${error.code}: ${error.message}` } : { door: 'ag-ui', ok: true };
      },
    ),
    a2a
      .sendMessage(
        SendMessageRequest.fromJSON({
          message: {
            messageId: uniqueId('m'),
            role: 'ROLE_USER',
            taskId: `turn-1@${agentId}`,
            parts: [{ text: 'deny' }, { data: { approved: false, waitId, reason: 'not today' } }],
          },
        }),
      )
      .then(
        () => ({ door: 'a2a', ok: true }),
        (err: Error) => ({ door: 'a2a', ok: false, text: String(err.message) }),
      ),
  ]);
  const winners = doors.filter((d) => d.ok);
  expect(winners).toHaveLength(1);
  const winner = winners[0].door;
  const who = ({ rest: 'rest / ana', 'ag-ui': 'ag-ui / bob', a2a: 'a2a / a2a' } as Record<string, string>)[winner];
  const refusals = doors.filter((d) => !d.ok);
  expect(refusals).toHaveLength(2);
  for (const r of refusals) expect(r.text).toMatch(new RegExp(`ALREADY_ANSWERED: Wait ${waitId} was already answered by ${who} at \\d{4}-\\d\\d-\\d\\dT`));

  expect(await t.agents.waitForAnswer(agentId, 1)).toMatchObject({ status: 'answered' });
  const results = toolResults(await t.agents.history(agentId));
  expect(results).toHaveLength(1);
  expect(results[0].results[0].metadata?.decision).toMatchObject({ approved: winner !== 'a2a', door: winner });
  expect(results[0].results[0].status).toBe(winner === 'a2a' ? 'Skipped' : 'Success');
  // Exactly one decision reached the workflow: the refused ones were refused before its history.
  const history = await t.agents.handle(agentId).fetchHistory();
  const accepted = (history.events ?? []).filter((e) => e.workflowExecutionUpdateAcceptedEventAttributes);
  const names = accepted.map((e) => e.workflowExecutionUpdateAcceptedEventAttributes!.acceptedRequest!.input!.name);
  expect(names.filter((n) => n === 'decideToolCall' || n === 'answerWait')).toHaveLength(1);
});
