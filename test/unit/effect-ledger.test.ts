/**
 * The effect ledger through the Agent's public API, with plain functions as deps: a call whose outcome is
 * unknown holds the batch (state says so), and a resolution — done, failed or retry — moves it on once;
 * a second resolution is refused. Also the activity's rule for what an earlier attempt may have done.
 */
import { Agent, type ModelCallResult, type StepDeps, type ToolCallRequest, type ToolResultsEntry } from '../../agent/index';
import { beforeBodyMarker, checkReconcileAnswer, previousOutcomeUnknown, unknownOutcomeStep } from '../../activities/tools/unknown-outcome';
import { FAKE_INVOCATION, tickingClock } from '../support/scripted-deps';

const clock = tickingClock();
const call = (toolCallId: string): ToolCallRequest => ({ toolName: 'charge', toolCallId, rawArguments: '{}', arguments: {} });

/** Deps whose model asks for `calls` once; the executor answers `unknown` for the calls named, Success otherwise. */
function deps(calls: ToolCallRequest[], unknown: Set<string>) {
  const outputs: ModelCallResult[] = [
    { contents: [], toolCalls: calls, invocation: FAKE_INVOCATION },
    { contents: ['done'], toolCalls: [], invocation: FAKE_INVOCATION },
  ];
  const runs: string[] = [];
  const d: StepDeps & { runs: string[] } = {
    runs,
    async callModel() {
      const next = outputs.shift();
      if (!next) throw new Error('the model script ran out');
      return next;
    },
    async executeTool(c) {
      runs.push(c.toolCallId);
      if (unknown.has(c.toolCallId)) return { outcomeUnknown: true, reason: 'attempt 1 started and never reported' };
      return { toolCallId: c.toolCallId, toolName: c.toolName, status: 'Success', result: `charged ${c.toolCallId}` };
    },
  };
  return d;
}

async function atToolStep(d: StepDeps): Promise<Agent> {
  const agent = Agent.create({ config: { model: 'fake:m' }, clock });
  agent.enqueueInput({ text: 'go' });
  await agent.doStep(d);
  await agent.doStep(d);
  return agent;
}

const lastResults = (agent: Agent) => agent.state.entries.filter((e): e is ToolResultsEntry => e.kind === 'tool_results').at(-1)!;

describe('a call whose outcome is unknown', () => {
  test('holds the batch: state lists it, blocked on unknown_outcome, and it is not run again', async () => {
    const d = deps([call('c1'), call('c2')], new Set(['c1']));
    const agent = await atToolStep(d);
    expect(await agent.doStep(d)).toBe('BlockedOnApproval');
    expect(await agent.doStep(d)).toBe('BlockedOnApproval');
    expect(d.runs).toEqual(['c1']);
    const status = agent.status({ stopping: false });
    expect(status.blockedOn).toBe('unknown_outcome');
    expect(status.unknownOutcomes).toEqual([expect.objectContaining({ toolCallId: 'c1', toolName: 'charge', reason: 'attempt 1 started and never reported' })]);
    expect(status.effects).toEqual([expect.objectContaining({ toolCallId: 'c1', outcome: 'unknown' })]);
  });

  test('resolved done: a Success result with the text, who and when in its metadata; then the batch goes on', async () => {
    const d = deps([call('c1'), call('c2')], new Set(['c1']));
    const agent = await atToolStep(d);
    await agent.doStep(d);
    agent.resolveToolCall({ toolCallId: 'c1', done: 'the card was charged once', by: 'ops' });
    expect(() => agent.resolveToolCall({ toolCallId: 'c1', retry: true })).toThrow(/already resolved \(done by ops/);
    for (let i = 0; i < 5 && agent.runState !== 'PendingToolResults'; i++) await agent.doStep(d);
    expect(d.runs).toEqual(['c1', 'c2']);
    const [r1, r2] = lastResults(agent).results;
    expect(r1).toMatchObject({ status: 'Success', result: 'the card was charged once', metadata: { resolved: 'done', resolved_by: 'ops' } });
    expect(r1.metadata?.outcome_was_unknown).toContain('never reported');
    expect(r2).toMatchObject({ status: 'Success', result: 'charged c2' });
    expect(agent.status({ stopping: false }).effects).toBeUndefined(); // the ledger is the batch's
  });

  test('resolved failed: a Failed result saying so', async () => {
    const d = deps([call('c1')], new Set(['c1']));
    const agent = await atToolStep(d);
    await agent.doStep(d);
    agent.resolveToolCall({ toolCallId: 'c1', failed: 'no charge found' });
    await agent.doStep(d);
    expect(lastResults(agent).results[0]).toMatchObject({ status: 'Failed', metadata: { resolved: 'failed' } });
    expect(lastResults(agent).results[0].result).toContain('no charge found');
  });

  test('resolved retry: the call runs again, its result says it was retried after an unknown outcome', async () => {
    const unknown = new Set(['c1']);
    const d = deps([call('c1')], unknown);
    const agent = await atToolStep(d);
    await agent.doStep(d);
    agent.resolveToolCall({ toolCallId: 'c1', retry: true, by: 'ops' });
    unknown.clear();
    expect(await agent.doStep(d)).toBe('ProgressMade');
    expect(d.runs).toEqual(['c1', 'c1']);
    await agent.doStep(d);
    expect(lastResults(agent).results[0]).toMatchObject({ status: 'Success', result: 'charged c1', metadata: { resolved: 'retry', resolved_by: 'ops' } });
  });

  test('a retry whose run is unknown again waits again, and may be resolved again', async () => {
    const d = deps([call('c1')], new Set(['c1']));
    const agent = await atToolStep(d);
    await agent.doStep(d);
    agent.resolveToolCall({ toolCallId: 'c1', retry: true });
    expect(await agent.doStep(d)).toBe('BlockedOnApproval');
    expect(agent.unknownOutcomes()).toHaveLength(1);
    agent.resolveToolCall({ toolCallId: 'c1', done: 'ok' });
  });

  test('bad or misplaced resolutions are refused with what to send', async () => {
    const d = deps([call('c1'), call('c2')], new Set(['c1']));
    const agent = await atToolStep(d);
    expect(() => agent.checkResolution({ toolCallId: 'c1', done: 'x' })).toThrow(/not unknown \(not started\)/);
    await agent.doStep(d);
    expect(() => agent.checkResolution({ toolCallId: 'c1' })).toThrow(/A resolution is/);
    expect(() => agent.checkResolution({ toolCallId: 'c1', done: 'x', retry: true })).toThrow(/A resolution is/);
    expect(() => agent.checkResolution({ toolCallId: 'nope', done: 'x' })).toThrow(/No pending tool call nope/);
    expect(() => agent.checkResolution({ toolCallId: 'c2', done: 'x' })).toThrow(/not unknown/);
  });

  test('the ledger is carried in the snapshot and read back', async () => {
    const d = deps([call('c1')], new Set(['c1']));
    const agent = await atToolStep(d);
    await agent.doStep(d);
    const copy = Agent.fromSnapshot(JSON.parse(JSON.stringify(agent.toSnapshot())), clock);
    expect(copy.unknownOutcomes().map((u) => u.toolCallId)).toEqual(['c1']);
    copy.resolveToolCall({ toolCallId: 'c1', done: 'ok' });
  });

  test('a run that predates the change records a Failed result instead of waiting', async () => {
    const d = { ...deps([call('c1')], new Set(['c1'])), since: () => false };
    const agent = await atToolStep(d);
    expect(await agent.doStep(d)).toBe('ProgressMade');
    expect(agent.pendingToolResults[0]).toMatchObject({ status: 'Failed' });
  });
});

describe('what an earlier attempt may have done (activities/tools/unknown-outcome)', () => {
  test('a first attempt has no earlier one', () => expect(previousOutcomeUnknown(1, undefined)).toBe(false));
  test('no details, other details or a marker of another attempt: unknown (heartbeats are sent asynchronously)', () => {
    expect(previousOutcomeUnknown(2, undefined)).toBe(true);
    expect(previousOutcomeUnknown(2, { progress: 3 })).toBe(true);
    expect(previousOutcomeUnknown(3, beforeBodyMarker(1))).toBe(true);
  });
  test("the previous attempt's before-the-body marker: known not to have run", () => expect(previousOutcomeUnknown(3, beforeBodyMarker(2))).toBe(false));
  test('reconcile first, else idempotent runs again, else wait', () => {
    expect(unknownOutcomeStep({ reconcile: () => ({ notDone: true }), idempotent: true })).toEqual({ step: 'reconcile' });
    expect(unknownOutcomeStep({ idempotent: true })).toEqual({ step: 'run', why: 'idempotent' });
    expect(unknownOutcomeStep({})).toEqual({ step: 'wait' });
  });
  test("reconcile's answer is checked", () => {
    expect(checkReconcileAnswer({ done: 'x' })).toEqual({ done: 'x' });
    expect(checkReconcileAnswer({ done: { text: 'x', metadata: { a: 1 } } })).toEqual({ done: { text: 'x', metadata: { a: 1 } } });
    expect(checkReconcileAnswer({ notDone: true })).toEqual({ notDone: true });
    expect(() => checkReconcileAnswer({ done: 3 })).toThrow(/reconcile must return/);
    expect(() => checkReconcileAnswer(undefined)).toThrow(/reconcile must return/);
  });
});

test('a resolution of a call whose result is recorded since says it was resolved already', async () => {
  const unknown = new Set(['c1']);
  const d = deps([call('c1')], unknown);
  const agent = await atToolStep(d);
  await agent.doStep(d);
  agent.resolveToolCall({ toolCallId: 'c1', done: 'ok', by: 'ops' });
  await agent.doStep(d);
  expect(agent.runState).toBe('PendingToolResults');
  expect(() => agent.resolveToolCall({ toolCallId: 'c1', retry: true })).toThrow(/c1 was already resolved \(done; its result is recorded\)/);
});
