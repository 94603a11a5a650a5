/**
 * What enters the agent is repaired or refused as it enters, and snapshots are read with every
 * invariant the agent relies on: odd provider replies never make a state that a new run (or an import)
 * would refuse, and an inconsistent snapshot is refused with its reason.
 */
import {
  Agent,
  AgentSnapshot,
  ConfigChange,
  type ModelCallResult,
  SnapshotError,
  type StepDeps,
  checkCarried,
  readCheckedSnapshot,
  readSnapshot,
  repairModelOutput,
  snapshotProblems,
} from '../../agent/index';
import { FAKE_INVOCATION, tickingClock } from '../support/scripted-deps';

const invocation = FAKE_INVOCATION;
const clock = tickingClock();

function deps(outputs: unknown[]): StepDeps {
  return {
    async callModel() {
      return outputs.shift() as ModelCallResult;
    },
    async executeTool(call) {
      // An executor returning what no tool should: a non-string result, a bad status, NaN timing.
      return { toolCallId: call.toolCallId, toolName: call.toolName, status: 'Weird', result: { not: 'text' }, elapsedMs: Number.NaN } as never;
    },
  };
}

async function untilBlocked(agent: Agent, d: StepDeps) {
  for (let i = 0; i < 20; i++) if ((await agent.doStep(d)) !== 'ProgressMade') return;
}

test('odd replies (empty and duplicate ids, missing or fractional usage) are repaired as they enter; the state still reads', async () => {
  const agent = Agent.create({ config: { model: 'fake:m' }, clock });
  const odd = {
    contents: ['calling'],
    toolCalls: [
      { toolName: 't', toolCallId: '', rawArguments: '{}' },
      { toolName: 't', toolCallId: 'dup', rawArguments: '{}' },
      { toolName: 't', toolCallId: 'dup', rawArguments: '{"a":1}', arguments: { a: 1 } },
    ],
    invocation,
    usage: { outputTokens: 2.5 },
  };
  agent.enqueueInput({ text: 'go' });
  await untilBlocked(agent, deps([odd, { contents: ['done'], toolCalls: [], invocation, usage: { inputTokens: 10.4, outputTokens: -3 } }]));
  const snapshot = JSON.parse(JSON.stringify(agent.toSnapshot()));
  expect(() => readSnapshot(snapshot)).not.toThrow();
  const [, out, results, answer] = agent.state.entries;
  if (out.kind !== 'model_output' || results.kind !== 'tool_results' || answer.kind !== 'model_output') throw new Error('unexpected entries');
  const ids = out.toolCalls.map((c) => c.toolCallId);
  expect(new Set(ids).size).toBe(3);
  expect(ids.every((id) => id.length > 0)).toBe(true);
  expect(out.usage).toEqual({ inputTokens: 0, outputTokens: 3 });
  expect(out.metadata?.output_repaired).toMatch(/no usable id/);
  expect(results.results.map((r) => r.status)).toEqual(['Failed', 'Failed', 'Failed']);
  expect(results.results[0].result).toMatch(/invalid status/);
  expect(answer.usage).toEqual({ inputTokens: 10, outputTokens: 0 });
});

test('an output that cannot be repaired into an entry is a model error the agent stays blocked on, never a broken state', async () => {
  const agent = Agent.create({ config: { model: 'fake:m' }, clock });
  agent.enqueueInput({ text: 'go' });
  await untilBlocked(agent, deps([{ contents: [], toolCalls: [], invocation: {} }]));
  expect(agent.lastError?.code).toBe('EMPTY_OUTPUT');
  expect(() => readSnapshot(JSON.parse(JSON.stringify(agent.toSnapshot())))).not.toThrow();
});

test('repairModelOutput keeps a valid output as it is', () => {
  const out: ModelCallResult = {
    contents: ['hi'],
    toolCalls: [{ toolName: 't', toolCallId: 'c1', rawArguments: '{}', arguments: {} }],
    invocation,
    usage: { inputTokens: 3, outputTokens: 1 },
  };
  expect(repairModelOutput(out, 5)).toEqual(out);
});

function validSnapshot(): AgentSnapshot {
  return AgentSnapshot.parse({
    format: 'livecontext.agent-snapshot',
    version: 1,
    config: { model: 'fake:m' },
    entries: [
      { kind: 'model_input', seq: 1, timestamp: '2026-01-01T00:00:00.000Z', sections: [{ title: 'Input', content: 'hi' }], inputSeq: 1 },
      {
        kind: 'model_output',
        seq: 2,
        timestamp: '2026-01-01T00:00:01.000Z',
        contents: [],
        toolCalls: [
          { toolName: 't', toolCallId: 'a', rawArguments: '{}' },
          { toolName: 't', toolCallId: 'b', rawArguments: '{}' },
        ],
        invocation,
      },
    ],
    nextSeq: 3,
    pendingToolResults: [{ toolName: 't', toolCallId: 'a', status: 'Success', result: 'ok' }],
    inbox: [{ inputSeq: 2, sections: [{ title: 'Input', content: 'next' }], receivedAt: '2026-01-01T00:00:02.000Z' }],
    nextInputSeq: 3,
    consumedInputSeq: 1,
    approvals: { b: { status: 'approved', at: '2026-01-01T00:00:03.000Z' } },
  });
}

test('a consistent snapshot reads', () => {
  expect(snapshotProblems(validSnapshot())).toEqual([]);
});

const broken: Array<[string, (s: AgentSnapshot) => void, RegExp]> = [
  ['entries out of order', (s) => s.entries.reverse(), /sequence numbers must increase|does not follow|answers neither/],
  ['a duplicate sequence number', (s) => (s.entries[1].seq = 1), /sequence numbers must increase/],
  ['nextSeq too low', (s) => (s.nextSeq = 2), /nextSeq 2 is not above/],
  ['consumedInputSeq above nextInputSeq', (s) => (s.consumedInputSeq = 7), /consumedInputSeq 7 is not below nextInputSeq 3/],
  ['a queued input numbered too low', (s) => (s.inbox[0].inputSeq = 1), /queued input #1 is out of order/],
  ['duplicate tool call ids', (s) => s.entries[1].kind === 'model_output' && (s.entries[1].toolCalls[1].toolCallId = 'a'), /duplicate tool call ids/],
  ['a result for a call that does not exist', (s) => (s.pendingToolResults[0].toolCallId = 'zzz'), /answers no call/],
  ['two results for one call', (s) => s.pendingToolResults.push({ ...s.pendingToolResults[0] }), /two pending results answer a/],
  ['an approval for another call', (s) => (s.approvals.zzz = { status: 'approved', at: '2026-01-01T00:00:03.000Z' }), /approval for zzz/],
  ['a garbage timer', (s) => (s.timers = { b: { startedAt: 'soon', wakeAt: 'later' } }), /timer of b/],
  ['a timer of a thousand years', (s) => (s.timers = { b: { startedAt: '2026-01-01T00:00:00.000Z', wakeAt: '3026-01-01T00:00:00.000Z' } }), /timer of b/],
  [
    'tool results that answer other calls',
    (s) =>
      s.entries.push({ kind: 'tool_results', seq: 3, timestamp: 'x', results: [{ toolName: 't', toolCallId: 'b', status: 'Success', result: '' }] }) &&
      (s.nextSeq = 4),
    /do not answer the calls/,
  ],
  [
    'two inputs in a row',
    (s) => s.entries.splice(1, 1, { kind: 'model_input', seq: 2, timestamp: 'x', sections: [{ title: 'Input', content: 'again' }], inputSeq: 2 }),
    /does not follow a finished turn/,
  ],
];

test.each(broken)('an inconsistent snapshot is refused: %s', (_name, breakIt, reason) => {
  const s = validSnapshot();
  breakIt(s);
  expect(() => Agent.fromSnapshot(s, clock)).toThrow(SnapshotError);
  expect(() => Agent.fromSnapshot(s, clock)).toThrow(reason);
});

test('the check before continue-as-new refuses what the new run could not read, without a schema pass over the entries', () => {
  expect(() => checkCarried(validSnapshot())).not.toThrow();
  const broken = (change: (s: AgentSnapshot) => void) => {
    const s = validSnapshot();
    change(s);
    return () => checkCarried(s);
  };
  expect(broken((s) => ((s.entries as unknown[])[1] = null))).toThrow(/entries\.1: not an entry/);
  expect(broken((s) => ((s.entries[0] as { seq: unknown }).seq = '1'))).toThrow(/entries\.0: not an entry/);
  expect(broken((s) => ((s.config as { model: unknown }).model = 7))).toThrow(/snapshot schema \(config\.model/);
  expect(broken((s) => (s.nextSeq = 2))).toThrow(/inconsistent: nextSeq 2 is not above/);
});

test('an imported snapshot asks its approvals again; a carried one keeps them', () => {
  expect(Agent.fromSnapshot(validSnapshot(), clock).approvals).toHaveProperty('b');
  expect(Agent.fromSnapshot(validSnapshot(), clock, { imported: true }).approvals).toEqual({});
});

test('a decision must say approved true or false exactly', () => {
  const agent = Agent.fromSnapshot(validSnapshot(), clock);
  expect(() => agent.decideToolCall({ toolCallId: 'b', approved: 'false' })).toThrow(/A decision is/);
  expect(() => agent.decideToolCall({ toolCallId: 'b', approved: 1 })).toThrow(/A decision is/);
  expect(() => agent.decideToolCall({ toolCallId: 'b', approved: false, by: 42 })).toThrow(/A decision is/);
  expect(() => agent.decideToolCall({ toolCallId: 'nope', approved: true })).toThrow(/No pending tool call nope/);
  // b was approved ahead of time in the snapshot: the first decision wins, a second is refused naming it.
  expect(() => agent.decideToolCall({ toolCallId: 'b', approved: false, reason: 'no' })).toThrow(
    /^Wait approval-\d+-b was already answered by someone at \S+ \(approved\)/,
  );
  expect(agent.approvals.b).toMatchObject({ status: 'approved' });
});

test('waiting for an input taken before a reset says reset, not "blank input"', () => {
  const agent = Agent.fromSnapshot(validSnapshot(), clock);
  const fresh = Agent.fromSnapshot(agent.resetSnapshot(), clock);
  expect(fresh.turnOutcome(1)).toEqual({ inputSeq: 1, status: 'reset' });
  expect(fresh.turnOutcome(2)).toBeUndefined(); // still queued: it is answered in the new history
});

test('the input limit counts what the sender sent', () => {
  const agent = Agent.create({ config: { model: 'fake:m' }, clock });
  expect(() => agent.enqueueInput({ text: 'x'.repeat(256 * 1024) })).not.toThrow();
  expect(() => agent.enqueueInput({ text: 'x'.repeat(256 * 1024 + 1) })).toThrow(/Input is 262145 bytes; the limit is 262144 bytes/);
});

test('what a sender can add to an agent is bounded: sections, tool lists, approval policies, extras', () => {
  const agent = Agent.create({ config: { model: 'fake:m' }, clock });
  expect(() => agent.enqueueInput({ sections: Array.from({ length: 101 }, () => ({ title: '', content: '' })) })).toThrow(/Malformed input/);
  expect(ConfigChange.safeParse({ tools: Array.from({ length: 513 }, (_, i) => `t${i}`) }).success).toBe(false);
  expect(ConfigChange.safeParse({ approval: Object.fromEntries(Array.from({ length: 513 }, (_, i) => [`t${i}`, 'always'])) }).success).toBe(false);
  expect(ConfigChange.safeParse({ params: { extra: { blob: 'x'.repeat(20_000) } } }).success).toBe(false);
  expect(ConfigChange.safeParse({ tools: ['a', 'b'], approval: { a: 'always' }, params: { extra: { seed: 1 } } }).success).toBe(true);
});

test('a snapshot carried as checked by continue-as-new is taken as it is; one of another version is checked after all', async () => {
  const agent = Agent.create({ config: { model: 'fake:m' }, clock });
  agent.enqueueInput({ text: 'go' });
  await untilBlocked(agent, deps([{ contents: ['done'], toolCalls: [], invocation }]));
  const carried = JSON.parse(JSON.stringify(agent.toSnapshot()));
  expect(readCheckedSnapshot(carried)).toBe(carried);
  expect(Agent.fromSnapshot(carried, clock, { checked: true }).state.entries).toEqual(agent.state.entries);
  // A version this code does not write was not checked by it: read with every check (here: refused).
  expect(() => readCheckedSnapshot({ ...carried, version: 99 })).toThrow(SnapshotError);
});
