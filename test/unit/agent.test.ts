/** The pure state machine with in-memory deps: doStep, inbox semantics, errors, snapshots. */
import { Agent, type ModelCallRequest, type ModelCallResult, SnapshotError, type StepDeps, type ToolCallRequest } from '../../agent/index';
import { FAKE_INVOCATION } from '../support/scripted-deps';

const invocation = FAKE_INVOCATION;
let now = Date.UTC(2026, 0, 1);
const clock = () => (now += 1000);

function fakeDeps(outputs: ModelCallResult[], log: string[] = []): StepDeps & { requests: ModelCallRequest[]; toolRuns: string[] } {
  const requests: ModelCallRequest[] = [];
  const toolRuns: string[] = [];
  return {
    requests,
    toolRuns,
    async callModel(req) {
      requests.push(req);
      const next = outputs.shift();
      if (!next) throw Object.assign(new Error('script ran out'), { code: 'SCRIPT_EMPTY' });
      return next;
    },
    async executeTool(call: ToolCallRequest) {
      toolRuns.push(call.toolCallId);
      if (call.toolName === 'boom') throw new Error('kaput');
      return { toolCallId: call.toolCallId, toolName: call.toolName, status: 'Success', result: `ran ${call.toolCallId}` };
    },
    log: (category, message) => log.push(`${category}: ${message}`),
  };
}

const calls = (...ids: string[]) => ids.map((id) => ({ toolName: id === 'x' ? 'boom' : 't', toolCallId: id, rawArguments: '{}', arguments: {} }));

async function runUntilBlocked(agent: Agent, deps: StepDeps) {
  const outcomes: string[] = [];
  for (let i = 0; i < 50; i++) {
    const o = await agent.doStep(deps);
    outcomes.push(o);
    if (o !== 'ProgressMade') return outcomes;
  }
  throw new Error('did not block');
}

test('a multi-step tool loop follows seed 004 state by state', async () => {
  const agent = Agent.create({ config: { model: 'fake:m' }, clock });
  const log: string[] = [];
  const deps = fakeDeps(
    [
      { contents: ['working'], toolCalls: calls('c1', 'c2'), invocation },
      { contents: ['done'], toolCalls: [], invocation },
    ],
    log,
  );
  expect(await agent.doStep(deps)).toBe('BlockedOnInput');
  agent.enqueueInput({ text: 'go' });
  const outcomes = await runUntilBlocked(agent, deps);
  expect(outcomes).toEqual(['ProgressMade', 'ProgressMade', 'ProgressMade', 'ProgressMade', 'ProgressMade', 'ProgressMade', 'BlockedOnInput']);
  expect(agent.state.entries.map((e) => e.kind)).toEqual(['model_input', 'model_output', 'tool_results', 'model_output']);
  expect(deps.toolRuns).toEqual(['c1', 'c2']);
  expect(deps.requests.map((r) => [r.uptoSeq, r.phase])).toEqual([
    [1, 'PendingInput'],
    [3, 'PendingToolResults'],
  ]);
  expect(log.filter((l) => l.startsWith('StateMachine'))).toEqual([
    'StateMachine: [StateMachine] WaitingInput->PendingInput',
    'StateMachine: [StateMachine] PendingInput->WaitingToolResults',
    'StateMachine: [StateMachine] WaitingToolResults->ToolResultsReady',
    'StateMachine: [StateMachine] ToolResultsReady->PendingToolResults',
    'StateMachine: [StateMachine] PendingToolResults->WaitingInput',
  ]);
  expect(agent.turnOutcome(1)).toMatchObject({ status: 'answered', answer: { contents: ['done'] } });
});

test('a tool that throws becomes a Failed result, and the loop goes on', async () => {
  const agent = Agent.create({ config: { model: 'fake:m' }, clock });
  const deps = fakeDeps([
    { contents: [], toolCalls: calls('x', 'c2'), invocation },
    { contents: ['recovered'], toolCalls: [], invocation },
  ]);
  agent.enqueueInput({ text: 'go' });
  await runUntilBlocked(agent, deps);
  const results = agent.state.entries.find((e) => e.kind === 'tool_results');
  expect(results).toMatchObject({
    results: [
      { toolCallId: 'x', status: 'Failed' },
      { toolCallId: 'c2', status: 'Success' },
    ],
  });
});

test('inputs queue in order; blank ones are dropped when pulled; none is lost', async () => {
  const agent = Agent.create({ config: { model: 'fake:m' }, clock });
  const deps = fakeDeps([
    { contents: ['a1'], toolCalls: [], invocation },
    { contents: ['a3'], toolCalls: [], invocation },
  ]);
  expect(agent.enqueueInput({ text: 'one' })).toEqual({ inputSeq: 1 });
  expect(agent.enqueueInput({ text: '  ' })).toEqual({ inputSeq: 2 });
  expect(agent.enqueueInput({ text: 'three' })).toEqual({ inputSeq: 3 });
  // Answers "one", then pulls the blank input: seed 004 drops it, stays, and reports BlockedOnInput.
  expect(await runUntilBlocked(agent, deps)).toEqual(['ProgressMade', 'ProgressMade', 'BlockedOnInput']);
  expect(agent.turnOutcome(2)).toMatchObject({ status: 'ignored' });
  expect(agent.turnOutcome(3)).toBeUndefined();
  expect(agent.inbox.map((i) => i.inputSeq)).toEqual([3]);
  await runUntilBlocked(agent, deps);
  const inputs = agent.state.entries.filter((e) => e.kind === 'model_input');
  expect(inputs.map((e) => e.kind === 'model_input' && e.sections[0].content)).toEqual(['one', 'three']);
  expect(agent.turnOutcome(3)).toMatchObject({ status: 'answered', answer: { contents: ['a3'] } });
});

test('a failed model call leaves the agent in its state with the error visible; it continues after clearError', async () => {
  const agent = Agent.create({ config: { model: 'fake:m' }, clock });
  const outputs: ModelCallResult[] = [];
  const deps = fakeDeps(outputs);
  agent.enqueueInput({ text: 'go' });
  expect(await runUntilBlocked(agent, deps)).toEqual(['ProgressMade', 'BlockedOnError']);
  expect(agent.runState).toBe('PendingInput');
  expect(agent.lastError).toMatchObject({ code: 'SCRIPT_EMPTY', message: 'script ran out', runState: 'PendingInput' });
  expect(agent.turnOutcome(1)).toMatchObject({ status: 'error' });
  outputs.push({ contents: ['finally'], toolCalls: [], invocation });
  agent.clearError();
  await runUntilBlocked(agent, deps);
  expect(agent.lastError).toBeUndefined();
  expect(agent.turnOutcome(1)).toMatchObject({ status: 'answered' });
});

test('a snapshot taken mid tool loop restores to an agent that takes the same next steps', async () => {
  const make = () => [
    { contents: [], toolCalls: calls('c1', 'c2', 'c3'), invocation },
    { contents: ['end'], toolCalls: [], invocation },
  ];
  const agent = Agent.create({ config: { model: 'fake:m', tools: ['t'] }, systemInstruction: 'sys', clock });
  const deps = fakeDeps(make());
  agent.enqueueInput({ text: 'go' });
  await agent.doStep(deps); // input
  await agent.doStep(deps); // output with 3 calls
  await agent.doStep(deps); // c1 ran
  agent.enqueueInput({ text: 'queued', sender: 'svc' });
  const snapshot = JSON.parse(JSON.stringify(agent.toSnapshot()));
  expect(snapshot).toMatchObject({
    format: 'livecontext.agent-snapshot',
    version: 1,
    pendingToolResults: [{ toolCallId: 'c1' }],
    inbox: [{ inputSeq: 2, sender: 'svc' }],
  });

  const restored = Agent.fromSnapshot(snapshot, clock);
  expect(restored.toSnapshot()).toEqual(snapshot);
  const depsA = fakeDeps(make().slice(1));
  const depsB = fakeDeps(make().slice(1));
  await runUntilBlocked(agent, depsA);
  await runUntilBlocked(restored, depsB);
  expect(depsB.toolRuns).toEqual(['c2', 'c3']);
  expect(depsB.toolRuns).toEqual(depsA.toolRuns);
  expect(restored.state.entries.map((e) => e.kind)).toEqual(agent.state.entries.map((e) => e.kind));
});

test('a malformed snapshot is refused with a clear error', () => {
  expect(() => Agent.fromSnapshot({ format: 'other' }, clock)).toThrow(SnapshotError);
  expect(() => Agent.fromSnapshot({ format: 'other' }, clock)).toThrow(/Not a livecontext agent snapshot v1/);
});

test('malformed input is rejected with what to send instead', () => {
  const agent = Agent.create({ config: { model: 'fake:m' }, clock });
  expect(() => agent.enqueueInput({ txt: 'x' })).toThrow(/Malformed input.*Send \{"text": "..."\}/);
  expect(() => agent.enqueueInput(42)).toThrow(/Malformed input/);
  expect(agent.inbox).toHaveLength(0);
});

test('an interrupted sleep keeps its timer in the snapshot; the restored agent waits only what is left', async () => {
  const agent = Agent.create({ config: { model: 'fake:m' }, clock });
  const sleepCall = { toolName: 'sleep', toolCallId: 's1', rawArguments: '{"seconds":60}', arguments: { seconds: 60 } };
  const waits: number[] = [];
  const deps: StepDeps = {
    ...fakeDeps([
      { contents: [], toolCalls: [sleepCall], invocation },
      { contents: ['awake'], toolCalls: [], invocation },
    ]),
    sleep: async (ms) => {
      waits.push(ms);
      return false; // the workflow needs the step to end (continue-as-new)
    },
  };
  agent.enqueueInput({ text: 'nap' });
  await agent.doStep(deps); // pull input
  await agent.doStep(deps); // model asks to sleep
  expect(await agent.doStep(deps)).toBe('ProgressMade');
  const snapshot = agent.toSnapshot();
  expect(snapshot.pendingToolResults).toEqual([]);
  const timer = snapshot.timers!.s1;
  expect(Date.parse(timer.wakeAt) - Date.parse(timer.startedAt)).toBe(60_000);

  const restored = Agent.fromSnapshot(JSON.parse(JSON.stringify(snapshot)), clock);
  now += 20_000; // twenty seconds pass before the next run gets to it
  const resumed: StepDeps = { ...deps, sleep: async (ms) => void waits.push(ms) };
  expect(await restored.doStep(resumed)).toBe('ProgressMade');
  expect(waits[1]).toBeLessThan(waits[0] - 20_000); // resumed, not restarted
  const [result] = restored.pendingToolResults;
  expect(result).toMatchObject({ status: 'Success', metadata: { waited_ms: 60_000 } });
  expect(restored.toSnapshot().timers).toBeUndefined(); // a finished timer is not carried on
});
