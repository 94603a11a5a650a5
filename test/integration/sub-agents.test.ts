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
/** Starts `parent` (with `cfg`), asks it to research `a` and `b`, and waits until both children work; the input's seq. */
async function researching(parent: string, a: string, b: string, cfg: AgentConfig = config()): Promise<number> {
  await t.agents.start(parent, cfg);
  const { inputSeq } = await t.agents.send(parent, `research ${a} and ${b}`);
  await eventually(() => started(a) > 0 && started(b) > 0, 60_000, 'both children to be working');
  return inputSeq;
}

test('two sub-agents in parallel, through a worker SIGKILL: both results, each child turn once; the tree in state', async () => {
  const parent = uniqueId('parent');
  const [a, b] = [uniqueId('x'), uniqueId('y')];
  const inputSeq = await researching(parent, a, b);

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
  const inputSeq = await researching(parent, a, b, config({ historyBudgetBytes: 2_000 }));
  // Input arriving while it waits grows the run's history past its (tiny) budget: it moves to new runs.
  for (let i = 0; i < 6; i++) await t.agents.signal(parent, `note ${i} ${'z'.repeat(300)}`);
  await eventually(
    async () => {
      let runs = 0;
      for await (const _ of t.client.workflow.list({ query: `WorkflowId = '${parent}'` })) runs++;
      return runs >= 2;
    },
    60_000,
    'a new run while the children work',
  );
  expect((await t.agents.state(parent)).subAgents?.map((c) => c.status)).toEqual(['Running', 'Running']);
  release(a);
  release(b);
  const outcome = await t.agents.waitForAnswer(parent, inputSeq);
  expect(outcome).toMatchObject({ status: 'answered', answer: { contents: [`results: Success: research on ${a} | Success: research on ${b}`] } });
});

test('stopping the parent stops its children', async () => {
  const parent = uniqueId('parent-stop');
  const [a, b] = [uniqueId('s'), uniqueId('t')];
  await researching(parent, a, b);
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
  const inputSeq = await researching(parent, a, b);
  const [childA] = (await t.agents.state(parent)).subAgents!.map((s) => s.agentId);
  await expect(t.agents.interrupt(childA, 'ops')).resolves.toMatchObject({ interrupted: true });
  release(a);
  release(b);
  const outcome = await t.agents.waitForAnswer(parent, inputSeq);
  expect(outcome).toMatchObject({ status: 'answered' });
  expect(outcome.status === 'answered' && outcome.answer.contents[0]).toMatch(
    new RegExp(`^results: Failed: The sub-agent ended without an answer \\(interrupted\\)\\. \\| Success: research on ${b}$`),
  );
});

test('a parent with an id over 200 characters delegates: its children get short ids and a valid sender, and it answers', async () => {
  const parent = uniqueId(`long-${'p'.repeat(240)}`);
  expect(parent.length).toBeGreaterThan(240);
  const [a, b] = [uniqueId('la'), uniqueId('lb')];
  const inputSeq = await researching(parent, a, b);
  const children = (await t.agents.state(parent)).subAgents!.map((s) => s.agentId);
  expect(new Set(children).size).toBe(2);
  for (const child of children) {
    expect(child.length).toBeLessThanOrEqual(200);
    expect(child).toMatch(new RegExp(`^${parent.slice(0, 100)}.*~[0-9a-f]{16}--researcher-\\d+-\\d$`));
    const [task] = (await t.agents.history(child)).filter((e) => e.kind === 'model_input');
    expect(task).toMatchObject({ kind: 'model_input', sender: expect.stringMatching(/~[0-9a-f]{16}$/) });
    expect((task as { sender?: string }).sender!.length).toBeLessThanOrEqual(200);
  }
  release(a);
  release(b);
  const outcome = await t.agents.waitForAnswer(parent, inputSeq);
  expect(outcome).toMatchObject({ status: 'answered', answer: { contents: [`results: Success: research on ${a} | Success: research on ${b}`] } });
  await maybeRecordHistory(t.agents.handle(parent), 'sub-agent-long-id_v1.json');
});

test('a child that cannot start, and one that ends without reporting, give their calls Failed results; the parent answers', async () => {
  const parent = uniqueId('parent-fail');
  const [a, b] = [uniqueId('fa'), uniqueId('fb')];
  // The first child's id (the parent's, the profile, the output's seq 2, call 1) is taken by another agent.
  const squatter = `${parent}--researcher-2-1`;
  await t.agents.start(squatter, { model: 'scripted:echo' });
  await t.agents.start(parent, config());
  const { inputSeq } = await t.agents.send(parent, `research ${a} and ${b}`);
  await eventually(() => started(b) > 0, 60_000, 'the second child to be working');
  const [child] = (await t.agents.state(parent)).subAgents!.filter((s) => s.status === 'Running').map((s) => s.agentId);
  await t.client.workflow.getHandle(child).terminate('gone');
  const outcome = await t.agents.waitForAnswer(parent, inputSeq);
  expect(outcome).toMatchObject({ status: 'answered' });
  const [first, second] = (outcome.status === 'answered' ? outcome.answer.contents[0] : '').replace(/^results: /, '').split(' | ');
  expect(first).toBe(`Failed: The researcher sub-agent could not be started: a workflow with the id ${squatter} already runs`);
  expect(second).toMatch(new RegExp(`^Failed: The sub-agent ${child} ended without an answer: .*terminated`, 'i'));
  expect(started(a)).toBe(0);
  await t.agents.stop(squatter);
  await maybeRecordHistory(t.agents.handle(parent), 'sub-agent-failures_v1.json');
});

test('export while sub-agents work: the copy answers their calls Failed ("interrupted by export") and moves on; the original gets the answers', async () => {
  const parent = uniqueId('parent-export');
  const [a, b] = [uniqueId('ea'), uniqueId('eb')];
  const env = { LIVECONTEXT_TASK_QUEUE: taskQueue };
  const inputSeq = await researching(parent, a, b);
  const file = path.join(mkdtempSync(path.join(tmpdir(), 'lc-export-')), 'agent.json');
  expect(await cli(['export', parent, '--out', file], { env })).toMatchObject({ code: 0 });
  const copy = `${parent}-copy`;
  expect(await cli(['import', file, '--id', copy], { env })).toMatchObject({ code: 0 });

  const copied = await t.agents.waitForAnswer(copy, inputSeq);
  expect(copied).toMatchObject({ status: 'answered' });
  const results = (copied.status === 'answered' ? copied.answer.contents[0] : '').replace(/^results: /, '').split(' | ');
  expect(results).toHaveLength(2);
  for (const r of results) expect(r).toMatch(/^Failed: Interrupted by export: the sub-agent \S+ was still working when this agent was exported/);
  expect((await t.agents.state(copy)).subAgents ?? []).toEqual([]);

  release(a);
  release(b);
  const original = await t.agents.waitForAnswer(parent, inputSeq);
  expect(original).toMatchObject({ status: 'answered', answer: { contents: [`results: Success: research on ${a} | Success: research on ${b}`] } });
  await maybeRecordHistory(t.agents.handle(copy), 'import-settles-sub-agents_v1.json');
});
