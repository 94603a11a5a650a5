/**
 * Time travel's two pure rules: which entries are points to go back to (travelPoint: a turn's end or a
 * model input, with a reason naming the nearest ones otherwise), and which entries are still in force
 * after rewinds (visibleEntries), nested rewinds and a bound included; the agent's rewind: what it keeps,
 * what leaves the model's context, the widgets and the instruction, and when it is refused.
 */
import { Agent, AgentState, type HistoryEntry, renderModelContext, rewoundBy, rewoundSeqs, travelPoint, visibleEntries } from '../../agent/index';
import { FAKE_INVOCATION, scriptedDeps, tickingClock } from '../support/scripted-deps';

const at = (seq: number) => ({ seq, timestamp: `2026-01-01T00:00:${String(seq % 60).padStart(2, '0')}.000Z` });
const input = (seq: number, text = `q${seq}`): HistoryEntry => ({ ...at(seq), kind: 'model_input', sections: [{ title: 'User', content: text }] });
const answer = (seq: number): HistoryEntry => ({ ...at(seq), kind: 'model_output', contents: [`a${seq}`], toolCalls: [], invocation: FAKE_INVOCATION });
const call = (seq: number): HistoryEntry => ({
  ...at(seq),
  kind: 'model_output',
  contents: [],
  toolCalls: [{ toolName: 't', toolCallId: `c${seq}`, rawArguments: '{}' }],
  invocation: FAKE_INVOCATION,
});
const results = (seq: number): HistoryEntry => ({
  ...at(seq),
  kind: 'tool_results',
  results: [{ toolName: 't', toolCallId: `c${seq - 1}`, status: 'Success', result: 'ok' }],
});
const rewind = (seq: number, toSeq: number): HistoryEntry => ({ ...at(seq), kind: 'rewind', toSeq });

// 1 in, 2 call, 3 results, 4 answer | 5 in, 6 answer | 7 in, 8 call, 9 results, 10 answer
const turns = [input(1), call(2), results(3), answer(4), input(5), answer(6), input(7), call(8), results(9), answer(10)];

test('a turn end or an input is a valid point; anything else is refused with the nearest points', () => {
  expect(travelPoint(turns, 4)).toEqual({ ok: true, seq: 4, kind: 'turn' });
  expect(travelPoint(turns, 5)).toEqual({ ok: true, seq: 5, kind: 'input' });
  const mid = travelPoint(turns, 8);
  expect(mid).toMatchObject({ ok: false, nearest: { before: 7, after: 10 } });
  expect(!mid.ok && mid.reason).toMatch(/#8 is a model output with tool calls.*Nearest valid points: #7, #10/);
  expect(travelPoint(turns, 3)).toMatchObject({ ok: false, reason: expect.stringMatching(/tool_results.*#1, #4/) });
  expect(travelPoint(turns, 0)).toMatchObject({ ok: false, reason: expect.stringMatching(/before the start/) });
  expect(travelPoint(turns, 11)).toMatchObject({ ok: false, reason: expect.stringMatching(/beyond the last entry \(#10\).*#10/) });
  expect(travelPoint([], 1)).toMatchObject({ ok: false, reason: expect.stringMatching(/beyond.*no valid point yet/) });
});

test('a rewind takes out the entries after its point and before itself; nested rewinds too; nothing rewound gives the same array', () => {
  expect(visibleEntries(turns)).toBe(turns);
  const once = [...turns, rewind(11, 4), input(12), answer(13)];
  expect(visibleEntries(once).map((e) => e.seq)).toEqual([1, 2, 3, 4, 11, 12, 13]);
  expect(rewoundSeqs(once)).toEqual(new Set([5, 6, 7, 8, 9, 10]));
  expect(rewoundBy(once, 7)?.seq).toBe(11);
  expect(rewoundBy(once, 4)).toBeUndefined();
  // Bound: at #10 nothing was rewound yet.
  expect(visibleEntries(once, 10).map((e) => e.seq)).toEqual([1, 2, 3, 4, 5, 6, 7, 8, 9, 10]);
  // A second rewind further back takes out the first one and what followed it.
  const twice = [...once, rewind(14, 1)];
  expect(visibleEntries(twice).map((e) => e.seq)).toEqual([1, 14]);
  expect(rewoundBy(twice, 11)?.seq).toBe(14);
  // A second rewind after the first keeps the first one's work.
  const later = [...once, input(14), answer(15), rewind(16, 13)];
  expect(visibleEntries(later).map((e) => e.seq)).toEqual([1, 2, 3, 4, 11, 12, 13, 16]);
  // A rewound entry is no valid point, and the refusal says which rewind took it out.
  expect(travelPoint(once, 6)).toMatchObject({
    ok: false,
    reason: expect.stringMatching(/#6 \(model_output\) was rewound by the rewind #11 \(to #4\).*#4, #12/),
  });
  // A rewind to an input: its turn runs again.
  expect(travelPoint(once, 12)).toEqual({ ok: true, seq: 12, kind: 'input' });
});

const reply = (text: string) => ({ contents: [text], toolCalls: [], invocation: FAKE_INVOCATION });

async function settle(agent: Agent, deps: ReturnType<typeof scriptedDeps>) {
  let outcome = await agent.doStep(deps);
  while (outcome === 'ProgressMade') outcome = await agent.doStep(deps);
  return outcome;
}

describe('Agent.rewind', () => {
  const notebookCall = (id: string, text: string) => ({
    toolName: 'memory_notebook_replace',
    toolCallId: id,
    rawArguments: JSON.stringify({ old_text: '', new_text: text }),
  });

  test('goes back to a turn end: the model, the widgets, the instruction and the budgets see the agent as it was; the inbox is kept', async () => {
    const agent = Agent.create({ config: { model: 'fake:m' }, systemInstruction: 'first', clock: tickingClock() });
    const deps = scriptedDeps([
      reply('one'),
      { contents: [], toolCalls: [notebookCall('n1', 'remember B')], invocation: FAKE_INVOCATION },
      reply('two'),
      reply('three'),
    ]);
    agent.enqueueInput({ text: 'A' });
    await settle(agent, deps); // 2 in, 3 one
    agent.configure({ systemInstruction: 'second' }); // 4
    agent.enqueueInput({ text: 'B' });
    await settle(agent, deps); // 5 in, 6 call, 7 results, 8 two
    expect(agent.notebook.content).toContain('remember B');
    agent.enqueueInput({ text: 'C (queued)' });
    expect(() => agent.checkRewind({ toSeq: 6 })).toThrow(/model output with tool calls.*#5, #8/);
    expect(() => agent.checkRewind({ toSeq: 99 })).toThrow(/beyond the last entry/);
    const r = agent.rewind({ toSeq: 3, by: 'ana', reason: 'went wrong at B' });
    expect(r).toEqual({ seq: 9, toSeq: 3, runState: 'WaitingInput', rewound: 5 });
    expect(agent.state.entries.map((e) => e.seq)).toEqual([1, 2, 3, 4, 5, 6, 7, 8, 9]); // nothing lost
    expect(agent.state.visible.map((e) => e.seq)).toEqual([1, 2, 3, 9]);
    expect(agent.notebook.content).not.toContain('remember B');
    expect(agent.state.systemInstruction).toBe('first');
    expect(agent.inbox.map((i) => i.sections[0].content)).toEqual(['C (queued)']);
    await settle(agent, deps); // 10 in C, 11 three
    const context = renderModelContext(agent.state.entries, { uptoSeq: 10 });
    expect(context.system).toBe('first');
    expect(JSON.stringify(context.messages)).not.toMatch(/remember B|two|"B"/);
    expect(JSON.stringify(context.messages)).toMatch(/C \(queued\)/);
    // The snapshot (continue-as-new, export) carries it all and reads back the same.
    const copy = Agent.fromSnapshot(JSON.parse(JSON.stringify(agent.toSnapshot())), tickingClock());
    expect(copy.state.visible.map((e) => e.seq)).toEqual([1, 2, 3, 9, 10, 11]);
    expect(copy.notebook.content).toBe(agent.notebook.content);
    // A second rewind, to an input: its turn runs again.
    expect(agent.rewind({ toSeq: 10 })).toMatchObject({ runState: 'PendingInput', rewound: 1 });
  });

  test('refused while the agent works; allowed when blocked on an error, which it clears', async () => {
    const agent = Agent.create({ config: { model: 'fake:m' }, clock: tickingClock() });
    const deps = scriptedDeps([reply('one')]);
    agent.enqueueInput({ text: 'A' });
    await settle(agent, deps);
    agent.enqueueInput({ text: 'B' });
    await agent.doStep(deps); // B's input: the model call is next
    expect(() => agent.checkRewind({ toSeq: 2 })).toThrow(/working \(PendingInput\).*interrupt/);
    expect(await agent.doStep(deps)).toBe('BlockedOnError'); // the script ran out
    expect(agent.lastError).toBeDefined();
    expect(agent.rewind({ toSeq: 2 })).toMatchObject({ seq: 5, runState: 'WaitingInput' }); // 1 in A, 2 one, 3 in B, 4 model_failure
    expect(agent.lastError).toBeUndefined();
    expect(() => agent.checkRewind({ toSeq: 3 })).toThrow(/was rewound by the rewind #5/);
  });
});

test('usage a rewind took out no longer counts against budgets (state still says what was spent)', async () => {
  const agent = Agent.create({ config: { model: 'fake:m', budgets: { dayTokens: 150 } }, clock: tickingClock() });
  const spend = (text: string) => ({ ...reply(text), usage: { inputTokens: 50, outputTokens: 50 } });
  const deps = scriptedDeps([spend('one'), spend('two'), spend('three')]);
  agent.enqueueInput({ text: 'A' });
  await settle(agent, deps); // 1 in, 2 one (100 tokens)
  agent.enqueueInput({ text: 'B' });
  await settle(agent, deps); // 3 in, 4 two (200 tokens)
  agent.enqueueInput({ text: 'C' });
  expect(await settle(agent, deps)).toBe('BlockedOnError'); // 5 in: over the day budget
  expect(agent.lastError?.code).toMatch(/^Budget\./);
  agent.rewind({ toSeq: 2 });
  agent.enqueueInput({ text: 'D' });
  expect(await settle(agent, deps)).toBe('BlockedOnInput'); // 100 tokens in force: D is answered
  expect(agent.state.visible.map((e) => e.seq)).toEqual([1, 2, 6, 7, 8]);
  expect(agent.status({ stopping: false }).usage).toMatchObject({ inputTokens: 150, outputTokens: 150 });
});

test('no segment is sealed between a rewind and its point: what it took out leaves the working set with it', () => {
  const long = (seq: number, kind: 'in' | 'out') => {
    const e = kind === 'in' ? input(seq, `q${seq} ${'x'.repeat(1000)}`) : answer(seq);
    return kind === 'out' && e.kind === 'model_output' ? { ...e, contents: [`a${seq} ${'y'.repeat(1000)}`] } : e;
  };
  const turnsOf = (n: number) => Array.from({ length: n }, (_, i) => [long(2 * i + 1, 'in'), long(2 * i + 2, 'out')]).flat();
  const after = [input(22), { ...answer(23), contents: ['z'.repeat(6000)] } as HistoryEntry, input(24), answer(25)];
  const plain = new AgentState(() => 0, { entries: [...turnsOf(10), ...after], nextSeq: 26 });
  expect(plain.sealCandidate(12_000)).toMatchObject({ fromSeq: 1 }); // without a rewind, a cut inside turns 3–10
  const cut = plain.sealCandidate(12_000)!.toSeq;
  expect(cut).toBeGreaterThan(4);
  expect(cut).toBeLessThan(21);
  const rewound = new AgentState(() => 0, { entries: [...turnsOf(10), rewind(21, 4), ...after], nextSeq: 26 });
  expect(rewound.visible.map((e) => e.seq)).toEqual([1, 2, 3, 4, 21, 22, 23, 24, 25]);
  expect(rewound.sealCandidate(12_000)).toBeUndefined();
});
