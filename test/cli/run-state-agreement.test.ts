/**
 * One vocabulary of run states everywhere (issue 26, item 5): for an agent waiting for approval, one
 * blocked by an error (its budget), and a sub-agent waiting for approval (a child workflow, started
 * without the run-state search attribute, so visibility alone cannot say what it does), `livecontext
 * list` and `livecontext state` say the same word, and so do the gateway's GET /agents (stateWord) and
 * GET /agents/:id (stateWord beside the raw runState).
 */
import { type Script, ScriptedModelProvider } from '../../activities/index';
import { unwrap } from '../../agent/index';
import { deployTool } from '../fixtures/test-tools';
import { cli } from '../support/cli';
import { type TestGateway, startTestGateway } from '../support/gateway';
import { connectTest, eventually, type TestContext, uniqueId, withWorker } from '../support/temporal';

let t: TestContext;
let gateway: TestGateway;
const taskQueue = uniqueId('state-words');
const env = { LIVECONTEXT_TASK_QUEUE: taskQueue };
beforeAll(async () => {
  t = await connectTest(taskQueue);
  gateway = await startTestGateway(t.agents);
});
afterAll(async () => {
  await gateway?.close();
  await t?.close();
});

/** Deploys api to prod (which waits for approval); says so after the result. */
const deployer: Script = (req) =>
  unwrap(req.messages[req.messages.length - 1]).kind === 'tool_results'
    ? { text: 'done' }
    : { toolCalls: [{ name: 'deploy', args: { service: 'api', env: 'prod' } }] };
/** Calls the task-list tool on every reply: only a budget stops it. */
const looper: Script = (req) => ({ toolCalls: [{ name: 'todo_add', args: { titles: [`step ${req.step}`] } }] });
/** Delegates its input to the deployer sub-agent. */
const lead: Script = (req) =>
  unwrap(req.messages[req.messages.length - 1]).kind === 'tool_results'
    ? { text: 'delegated' }
    : { toolCalls: [{ name: 'ask_deployer', args: { task: 'deploy api' } }] };

/** The word `livecontext list` prints for `agentId` (its table's STATE column). */
async function listedWord(agentId: string): Promise<string> {
  const list = await cli(['list'], { env });
  expect(list.code).toBe(0);
  const row = list.stdout.split('\n').find((line) => line.startsWith(`${agentId} `));
  expect(row).toBeDefined();
  return row!
    .slice(agentId.length)
    .trim()
    .split(/\s{2,}/)[0];
}

/** The word `livecontext state` prints for `agentId` (its first line, without what the agent is doing). */
async function stateWord(agentId: string): Promise<string> {
  const state = await cli(['state', agentId], { env });
  expect(state.code).toBe(0);
  return /^agent .*?: (.*?)(?: \(.*\))?$/m.exec(state.stdout)![1];
}

test('list and state agree, in the CLI and over REST, for approval, an error, and a sub-agent', async () => {
  await withWorker({ taskQueue, tools: [deployTool], models: [new ScriptedModelProvider({ deployer, looper, lead })] }, async () => {
    const waiting = uniqueId('waits');
    const blocked = uniqueId('blocked');
    const parent = uniqueId('lead');
    await t.agents.start(waiting, { model: 'scripted:deployer' });
    await t.agents.start(blocked, { model: 'scripted:looper', budgets: { turnModelCalls: 2 } });
    await t.agents.start(parent, {
      model: 'scripted:lead',
      subAgents: { deployer: { model: 'scripted:deployer', description: 'deploys', tools: ['deploy'] } },
    });
    for (const id of [waiting, blocked, parent]) await t.agents.send(id, 'go');
    await eventually(async () => (await t.agents.state(waiting)).blockedOn === 'approval', 60_000, 'the approval');
    await eventually(async () => (await t.agents.state(blocked)).blockedOn === 'error', 60_000, 'the budget stop');
    const child = await eventually(async () => (await t.agents.state(parent)).subAgents?.[0]?.agentId || undefined, 60_000, 'the sub-agent');
    await eventually(async () => (await t.agents.state(child)).blockedOn === 'approval', 60_000, "the sub-agent's approval");

    const expected: Record<string, string> = { [waiting]: 'waiting for approval', [blocked]: 'blocked by an error', [child]: 'waiting for approval' };
    // Visibility follows a rest point a moment later: ask until the list says it, then compare every view.
    for (const [id, word] of Object.entries(expected)) await eventually(async () => (await listedWord(id)) === word, 30_000, `${id} listed as ${word}`);
    const listed = (await gateway.request('GET', '/agents')).body.agents as Array<{ agentId: string; stateWord: string; runState: string | null }>;
    for (const [id, word] of Object.entries(expected)) {
      expect(await stateWord(id)).toBe(word);
      expect(listed.find((a) => a.agentId === id)?.stateWord).toBe(word);
      const one = await gateway.request('GET', `/agents/${id}`);
      expect(one.status).toBe(200);
      expect(one.body.stateWord).toBe(word);
      expect(typeof one.body.runState).toBe('string'); // the raw field stays, beside the word
    }
    // The sub-agent has no run-state search attribute: the list asked its state.
    expect(listed.find((a) => a.agentId === child)?.runState).toBeNull();
    expect((await gateway.request('GET', `/agents/${blocked}`)).body.stateDetail).toBe('its budget of model calls per turn');
    expect((await gateway.request('GET', `/agents/${waiting}`)).body.stateDetail).toBe('deploy');
    for (const id of [waiting, blocked, parent, child]) await t.agents.stop(id).catch(() => undefined);
  });
});
