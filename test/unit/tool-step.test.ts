/**
 * The tool step (seed 004 WaitingToolResults) through the Agent's public API, with plain functions as
 * deps: sequential and parallel batches, approval (pending, approved, denied, decided ahead), a tool
 * outside the agent's allowance, an executor that throws, widget tools run in the workflow, and
 * metadata that breaks the limits dropped with a note.
 */
import {
  Agent,
  type AgentConfig,
  InfrastructureError,
  type ModelCallResult,
  type StepDeps,
  type ToolCallRequest,
  type ToolCallResult,
  type ToolResultsEntry,
} from '../../agent/index';
import { FAKE_INVOCATION, tickingClock } from '../support/scripted-deps';

const invocation = FAKE_INVOCATION;
const clock = tickingClock();

const call = (toolCallId: string, toolName = 'work', args: Record<string, unknown> = {}): ToolCallRequest => ({
  toolName,
  toolCallId,
  rawArguments: JSON.stringify(args),
  arguments: args as ToolCallRequest['arguments'],
});

type Executor = StepDeps['executeTool'];
interface Run {
  call: ToolCallRequest;
  options?: Parameters<Executor>[1];
}

/** The tools this executor knows, as the worker's registry would: any other name is an unknown tool. */
const known = new Set(['work', 'boom', 'guarded', 'fat_metadata', 'odd_metadata', 'misaddressed']);

/** Deps whose model asks for `calls` once, then answers; the executor records what it was asked to run. */
function deps(calls: ToolCallRequest[], options: { execute?: Executor; metadata?: ModelCallResult['metadata'] } = {}) {
  const runs: Run[] = [];
  const outputs: ModelCallResult[] = [
    { contents: [], toolCalls: calls, invocation, ...(options.metadata ? { metadata: options.metadata } : {}) },
    { contents: ['done'], toolCalls: [], invocation },
  ];
  const d: StepDeps & { runs: Run[]; sleeps: number[] } = {
    runs,
    sleeps: [],
    async callModel() {
      const next = outputs.shift();
      if (!next) throw new Error('the model script ran out');
      return next;
    },
    async executeTool(c, opts) {
      runs.push({ call: c, ...(opts ? { options: opts } : {}) });
      if (options.execute) return options.execute(c, opts);
      if (!known.has(c.toolName)) return { toolCallId: c.toolCallId, toolName: c.toolName, status: 'Failed', result: `Unknown tool "${c.toolName}".` };
      if (c.toolName === 'boom') throw new Error('kaput');
      if (c.toolName === 'guarded' && !opts?.approved) return { approvalRequired: true, reason: 'it changes things' };
      if (c.toolName === 'fat_metadata') return { ...ok(c), metadata: { blob: 'x'.repeat(3000) } };
      if (c.toolName === 'odd_metadata') return { ...ok(c), metadata: { 'Not Snake': 1 } };
      if (c.toolName === 'misaddressed') return { ...ok(c), toolCallId: 'someone-else', toolName: 'other' };
      return ok(c);
    },
    sleep: async (ms) => void d.sleeps.push(ms),
  };
  return d;
}
const ok = (c: ToolCallRequest): ToolCallResult => ({ toolCallId: c.toolCallId, toolName: c.toolName, status: 'Success', result: `ran ${c.toolCallId}` });

/** An agent whose last model output asked for the calls of `d`: the next doStep is the tool step. */
async function atToolStep(config: Omit<AgentConfig, 'model'>, d: StepDeps): Promise<Agent> {
  const agent = Agent.create({ config: { model: 'fake:m', ...config }, clock });
  agent.enqueueInput({ text: 'go' });
  await agent.doStep(d); // input
  await agent.doStep(d); // model output with the calls
  expect(agent.runState).toBe('WaitingToolResults');
  return agent;
}

/** Steps until the batch's results are in history; returns that entry. */
async function finishBatch(agent: Agent, d: StepDeps): Promise<ToolResultsEntry> {
  for (let i = 0; i < 20 && agent.runState !== 'PendingToolResults'; i++) {
    const outcome = await agent.doStep(d);
    if (outcome === 'BlockedOnApproval') throw new Error('blocked on approval');
  }
  return agent.state.entries.filter((e): e is ToolResultsEntry => e.kind === 'tool_results').at(-1)!;
}

describe('batches', () => {
  test('sequential by default: one call per step, in call order', async () => {
    const d = deps([call('c1'), call('c2'), call('c3')]);
    const agent = await atToolStep({}, d);
    expect(await agent.doStep(d)).toBe('ProgressMade');
    expect(d.runs.map((r) => r.call.toolCallId)).toEqual(['c1']);
    expect(agent.pendingToolResults.map((r) => r.toolCallId)).toEqual(['c1']);
    await agent.doStep(d);
    expect(d.runs.map((r) => r.call.toolCallId)).toEqual(['c1', 'c2']);
    const entry = await finishBatch(agent, d);
    expect(entry.results.map((r) => [r.toolCallId, r.status])).toEqual([
      ['c1', 'Success'],
      ['c2', 'Success'],
      ['c3', 'Success'],
    ]);
  });

  test('parallelTools: the whole batch runs in one step, at once; results are recorded in call order', async () => {
    let started = 0;
    let release!: () => void;
    const allStarted = new Promise<void>((r) => (release = r));
    const d = deps([call('c1'), call('c2'), call('c3')], {
      async execute(c) {
        if (++started === 3) release();
        await allStarted; // would never resolve if the calls ran one after another
        if (c.toolCallId === 'c1') await new Promise((r) => setTimeout(r, 20)); // finishes last
        return ok(c);
      },
    });
    const agent = await atToolStep({ parallelTools: true }, d);
    expect(await agent.doStep(d)).toBe('ProgressMade');
    expect(agent.runState).toBe('ToolResultsReady');
    expect(agent.pendingToolResults.map((r) => r.toolCallId)).toEqual(['c2', 'c3', 'c1']);
    const entry = await finishBatch(agent, d);
    expect(entry.results.map((r) => r.toolCallId)).toEqual(['c1', 'c2', 'c3']);
  });

  test('a result always answers its own call, whatever the executor put in it', async () => {
    const d = deps([call('c1', 'misaddressed')]);
    const entry = await finishBatch(await atToolStep({}, d), d);
    expect(entry.results).toEqual([expect.objectContaining({ toolCallId: 'c1', toolName: 'misaddressed', status: 'Success' })]);
  });
});

describe('approval', () => {
  test("the agent's policy holds a call until a person approves it; then it runs as approved", async () => {
    const d = deps([call('c1', 'work')]);
    const agent = await atToolStep({ approval: { work: 'always' } }, d);
    expect(await agent.doStep(d)).toBe('BlockedOnApproval');
    expect(d.runs).toEqual([]);
    expect(agent.awaitingApproval()).toEqual([
      { call: expect.objectContaining({ toolCallId: 'c1' }), reason: "the agent's policy requires approval for work", requestedAt: expect.any(String) },
    ]);
    expect(await agent.doStep(d)).toBe('BlockedOnApproval'); // still waiting, still not run
    agent.decideToolCall({ toolCallId: 'c1', approved: true, by: 'ana' });
    expect(agent.awaitingApproval()).toEqual([]);
    const entry = await finishBatch(agent, d);
    expect(d.runs).toEqual([{ call: expect.objectContaining({ toolCallId: 'c1' }), options: { approved: true } }]);
    expect(entry.results[0]).toMatchObject({ toolCallId: 'c1', status: 'Success' });
  });

  test("a tool's own policy (the executor answers approvalRequired) waits the same way", async () => {
    const d = deps([call('c1', 'guarded')]);
    const agent = await atToolStep({}, d);
    expect(await agent.doStep(d)).toBe('BlockedOnApproval');
    expect(agent.awaitingApproval()).toMatchObject([{ reason: 'it changes things' }]);
    agent.decideToolCall({ toolCallId: 'c1', approved: true });
    expect((await finishBatch(agent, d)).results[0]).toMatchObject({ status: 'Success' });
    expect(d.runs.map((r) => r.options)).toEqual([undefined, { approved: true }]);
  });

  test('a denied call is Skipped with who denied it and why, and never runs', async () => {
    const d = deps([call('c1', 'work'), call('c2', 'work')]);
    const agent = await atToolStep({ approval: { work: 'always' } }, d);
    await agent.doStep(d);
    agent.decideToolCall({ toolCallId: 'c1', approved: false, by: 'ana', reason: 'not on prod' });
    agent.decideToolCall({ toolCallId: 'c2', approved: true }); // decided ahead, before it is reached
    const entry = await finishBatch(agent, d);
    expect(entry.results[0]).toMatchObject({
      toolCallId: 'c1',
      status: 'Skipped',
      result: 'The call was denied by ana: not on prod. Do not retry it unchanged.',
    });
    expect(entry.results[1]).toMatchObject({ toolCallId: 'c2', status: 'Success' });
    expect(d.runs.map((r) => r.call.toolCallId)).toEqual(['c2']);
  });

  test('sequentially a call waiting for a decision holds the ones after it; in parallel they run meanwhile', async () => {
    const batch = [call('c1', 'guarded'), call('c2'), call('c3')];
    const seq = deps(batch);
    const sequential = await atToolStep({}, seq);
    expect(await sequential.doStep(seq)).toBe('BlockedOnApproval');
    expect(await sequential.doStep(seq)).toBe('BlockedOnApproval');
    expect(seq.runs.map((r) => r.call.toolCallId)).toEqual(['c1']);
    expect(sequential.pendingToolResults).toEqual([]);

    const par = deps(batch);
    const parallel = await atToolStep({ parallelTools: true }, par);
    expect(await parallel.doStep(par)).toBe('ProgressMade');
    expect(parallel.pendingToolResults.map((r) => r.toolCallId)).toEqual(['c2', 'c3']);
    expect(await parallel.doStep(par)).toBe('BlockedOnApproval'); // only c1 is left, and it waits
    parallel.decideToolCall({ toolCallId: 'c1', approved: true });
    expect((await finishBatch(parallel, par)).results.map((r) => r.status)).toEqual(['Success', 'Success', 'Success']);
  });

  test('a decision for a call that is not pending is refused', async () => {
    const d = deps([call('c1')]);
    const agent = await atToolStep({}, d);
    expect(() => agent.decideToolCall({ toolCallId: 'nope', approved: true })).toThrow('No pending tool call nope.');
  });
});

describe('failures', () => {
  test('an executor that throws gives a Failed result saying so; the batch goes on', async () => {
    const d = deps([call('c1', 'boom'), call('c2')]);
    const entry = await finishBatch(await atToolStep({}, d), d);
    expect(entry.results[0]).toMatchObject({ toolCallId: 'c1', status: 'Failed', result: 'Tool boom could not be executed: kaput' });
    expect(entry.results[1]).toMatchObject({ toolCallId: 'c2', status: 'Success' });
  });

  test('an InfrastructureError is not the tool’s failure: nothing is recorded and the step throws', async () => {
    const d = deps([call('c1')], {
      execute: async () => {
        throw new InfrastructureError('UNDECODABLE', 'this worker cannot read the result');
      },
    });
    const agent = await atToolStep({}, d);
    await expect(agent.doStep(d)).rejects.toBeInstanceOf(InfrastructureError);
    expect(agent.pendingToolResults).toEqual([]);
    expect(agent.runState).toBe('WaitingToolResults');
  });

  test('metadata too large, or with keys that are not snake_case, is dropped with a note; the result stays', async () => {
    const d = deps([call('c1', 'fat_metadata'), call('c2', 'odd_metadata')]);
    const entry = await finishBatch(await atToolStep({}, d), d);
    expect(entry.results[0]).toMatchObject({
      status: 'Success',
      result: 'ran c1',
      metadata: { metadata_dropped: expect.stringMatching(/bytes; the limit is 2048/) },
    });
    expect(entry.results[1]).toMatchObject({
      status: 'Success',
      result: 'ran c2',
      metadata: { metadata_dropped: expect.stringMatching(/"Not Snake" is not snake_case/) },
    });
    expect(JSON.stringify(entry)).not.toContain('x'.repeat(100));
  });

  test('a tool the model made up is sent to the executor marked as not offered', async () => {
    const d = deps([call('c1', 'ghost')], { metadata: { unoffered_tools: ['ghost'] } });
    const entry = await finishBatch(await atToolStep({}, d), d);
    expect(d.runs).toEqual([{ call: expect.objectContaining({ toolName: 'ghost' }), options: { offered: false } }]);
    expect(entry.results[0]).toMatchObject({ status: 'Failed', result: 'Unknown tool "ghost".' });
  });
});

describe('widget tools', () => {
  const append = (id: string, text: string) => call(id, 'memory_notebook_replace', { old_text: '', new_text: text });

  test('run inside the agent, never through the executor, and change the widget', async () => {
    const d = deps([append('n1', 'remember: the build is green')]);
    const agent = await atToolStep({}, d);
    const entry = await finishBatch(agent, d);
    expect(d.runs).toEqual([]);
    expect(agent.notebook.content).toBe('remember: the build is green');
    expect(entry.results[0]).toMatchObject({ status: 'Success', elapsedMs: 0, metadata: { operation: 'append', length_after: 28 } });
  });

  test('their arguments are read leniently and checked strictly', async () => {
    const fenced = { ...append('n1', 'x'), rawArguments: '```json\n{"old_text": "", "new_text": "fenced"}\n```', arguments: undefined };
    const wrong = call('n2', 'memory_notebook_replace', { new_text: 'no old_text' });
    const d = deps([fenced, wrong]);
    const agent = await atToolStep({}, d);
    const entry = await finishBatch(agent, d);
    expect(agent.notebook.content).toBe('fenced');
    expect(entry.results[0]).toMatchObject({ status: 'Success' });
    expect(entry.results[1]).toMatchObject({ status: 'Failed', result: expect.stringMatching(/^Invalid arguments for memory_notebook_replace: old_text: /) });
  });

  test('outside the agent’s allowance a widget tool does not touch the widget, nor a timer tool sleep', async () => {
    const d = deps([append('n1', 'sneaked in'), call('s1', 'sleep', { seconds: 30 })]);
    const agent = await atToolStep({ tools: ['work'] }, d);
    const entry = await finishBatch(agent, d);
    expect(agent.notebook.content).toBe('');
    expect(d.sleeps).toEqual([]);
    expect(entry.results.map((r) => [r.toolCallId, r.status])).toEqual([
      ['n1', 'Failed'],
      ['s1', 'Failed'],
    ]);
  });

  test('within the allowance, a timer tool sleeps durably through deps.sleep', async () => {
    const d = deps([call('s1', 'sleep', { seconds: 30 })]);
    const entry = await finishBatch(await atToolStep({ tools: ['sleep'] }, d), d);
    expect(d.runs).toEqual([]);
    expect(d.sleeps).toHaveLength(1);
    expect(d.sleeps[0]).toBeGreaterThan(25_000);
    expect(entry.results[0]).toMatchObject({ status: 'Success', metadata: { waited_ms: 30_000 } });
  });
});
