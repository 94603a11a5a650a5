/**
 * Sub-agents as child workflows: a parent delegates to two researchers at once; the worker is SIGKILLed
 * while both work; the parent's turn finishes with both results and each child's turn ran once. The
 * parent continues as new while a child works and still gets its result. Stopping the parent stops its
 * children. On a real dev server; the recorded history replays.
 */
import { mkdtempSync, readdirSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import type { AgentConfig } from '../../agent/index';
import { type ChildWorker, startChildWorker } from '../support/child-worker';
import { cli } from '../support/cli';
import { maybeRecordHistory } from '../support/record-history';
import { connectTest, eventually, type TestContext, uniqueId } from '../support/temporal';

let t: TestContext;
let worker: ChildWorker | undefined;
const taskQueue = uniqueId('subagents');
const controlDir = mkdtempSync(path.join(tmpdir(), 'lc-ctl-'));
const workerEnv = { taskQueue, workspaceRoot: mkdtempSync(path.join(tmpdir(), 'lc-ws-')), controlDir };
beforeAll(async () => {
  t = await connectTest(taskQueue);
  worker = await startChildWorker(workerEnv);
});
afterAll(async () => {
  await worker?.kill();
  await t?.close();
});

const config = (extra: Partial<AgentConfig> = {}): AgentConfig => ({
  model: 'scripted:delegator',
  parallelTools: true,
  subAgents: { researcher: { model: 'scripted:researcher', description: 'finds things out' } },
  ...extra,
});
const started = (task: string) => readdirSync(controlDir).filter((f) => f.startsWith(`researching-${task}-`)).length;
const release = (task: string) => writeFileSync(path.join(controlDir, `release-${task}`), '');
const modelOutputs = async (agentId: string) => (await t.agents.history(agentId)).filter((e) => e.kind === 'model_output').length;

test('two sub-agents in parallel, through a worker SIGKILL: both results, each child turn once; the tree in state', async () => {
  const parent = uniqueId('parent');
  const [a, b] = [uniqueId('x'), uniqueId('y')];
  await t.agents.start(parent, config());
  const { inputSeq } = await t.agents.send(parent, `research ${a} and ${b}`);
  await eventually(() => started(a) > 0 && started(b) > 0, 60_000, 'both children to be working');

  const state = await t.agents.state(parent);
  expect(state.subAgents).toHaveLength(2);
  expect(state.subAgents!.map((s) => s.status)).toEqual(['Running', 'Running']);
  const children = state.subAgents!.map((s) => s.agentId);
  expect((await t.agents.state(children[0])).delegatedBy).toMatchObject({ agentId: parent, depth: 1 });
  const shown = await cli(['state', parent], { env: { LIVECONTEXT_TASK_QUEUE: taskQueue } });
  for (const child of children) expect(shown.stdout).toContain(`└ sub-agent ${child} (researcher, call `); // the tree, each child with its own state
  expect(shown.stdout).toMatch(/working on its task; working/);

  await worker!.kill('SIGKILL');
  worker = await startChildWorker(workerEnv);
  release(a);
  release(b);
  const outcome = await t.agents.waitForAnswer(parent, inputSeq);
  expect(outcome).toMatchObject({ status: 'answered', answer: { contents: [`results: Success: research on ${a} | Success: research on ${b}`] } });
  for (const child of children) {
    expect(await modelOutputs(child)).toBe(1); // each child's turn ran once (its model call was retried after the kill, not repeated)
    expect((await t.client.workflow.getHandle(child).describe()).status.name).toBe('COMPLETED'); // a child ends once it reported
  }
  await maybeRecordHistory(t.agents.handle(parent), 'sub-agents_v1.json');
});

test('the parent continues as new while a child works, and still gets its result', async () => {
  const parent = uniqueId('parent-can');
  const [a, b] = [uniqueId('p'), uniqueId('q')];
  await t.agents.start(parent, config({ historyBudgetBytes: 2_000 }));
  const { inputSeq } = await t.agents.send(parent, `research ${a} and ${b}`);
  await eventually(() => started(a) > 0 && started(b) > 0, 60_000, 'both children to be working');
  // Input arriving while it waits grows the run's history past its (tiny) budget: it moves to new runs.
  for (let i = 0; i < 6; i++) await t.agents.signal(parent, `note ${i} ${'z'.repeat(300)}`);
  await eventually(async () => {
    let runs = 0;
    for await (const _ of t.client.workflow.list({ query: `WorkflowId = '${parent}'` })) runs++;
    return runs >= 2;
  }, 60_000, 'a new run while the children work');
  expect((await t.agents.state(parent)).subAgents?.map((c) => c.status)).toEqual(['Running', 'Running']);
  release(a);
  release(b);
  const outcome = await t.agents.waitForAnswer(parent, inputSeq);
  expect(outcome).toMatchObject({ status: 'answered', answer: { contents: [`results: Success: research on ${a} | Success: research on ${b}`] } });
});

test('stopping the parent stops its children', async () => {
  const parent = uniqueId('parent-stop');
  const [a, b] = [uniqueId('s'), uniqueId('t')];
  await t.agents.start(parent, config());
  await t.agents.send(parent, `research ${a} and ${b}`);
  await eventually(() => started(a) > 0 && started(b) > 0, 60_000, 'both children to be working');
  const children = (await t.agents.state(parent)).subAgents!.map((s) => s.agentId);
  await t.agents.stop(parent, 'enough');
  // Like any agent told to stop, a child stops after its current step: here, a model call held open.
  for (const child of children) await eventually(async () => (await t.agents.state(child)).stopping, 30_000, `child ${child} told to stop`);
  release(a);
  release(b);
  for (const child of children) {
    await eventually(async () => (await t.client.workflow.getHandle(child).describe()).status.name === 'COMPLETED', 30_000, `child ${child} to stop`);
    const result = await t.client.workflow.getHandle(child).result();
    expect(result).toMatchObject({ stopped: true, reason: expect.stringMatching(/its parent stopped: enough/) });
  }
});

test('a child whose turn is cut short gives its call a Failed result; the parent goes on', async () => {
  const parent = uniqueId('parent-one-stop');
  const [a, b] = [uniqueId('u'), uniqueId('v')];
  await t.agents.start(parent, config());
  const { inputSeq } = await t.agents.send(parent, `research ${a} and ${b}`);
  await eventually(() => started(a) > 0 && started(b) > 0, 60_000, 'both children to be working');
  const [childA] = (await t.agents.state(parent)).subAgents!.map((s) => s.agentId);
  await expect(t.agents.interrupt(childA, 'ops')).resolves.toMatchObject({ interrupted: true });
  release(a);
  release(b);
  const outcome = await t.agents.waitForAnswer(parent, inputSeq);
  expect(outcome).toMatchObject({ status: 'answered' });
  expect(outcome.status === 'answered' && outcome.answer.contents[0]).toMatch(new RegExp(`^results: Failed: The sub-agent ended without an answer \\(interrupted\\)\\. \\| Success: research on ${b}$`));
});
