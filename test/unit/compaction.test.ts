/**
 * Compaction in the agent core: where the cut goes (never between a tool call and its results), how a
 * summary renders (in place of what it covers, right after the system instruction, the same bytes until
 * the next compaction), what the entry accepts, and the model step's compaction (recorded once; a failed
 * summary call blocks like a failed model call, and a retry compacts again; policy trim never compacts).
 */
import fc from 'fast-check';
import {
  Agent,
  AgentState,
  COMPACTION_INSTRUCTION,
  type CompactionNeeded,
  type ContextMessage,
  HistoryValidationError,
  type ModelCallRequest,
  type ModelCallResult,
  type StepDeps,
  chooseCompaction,
  compactionSections,
  countMessageTokens,
  renderLiveContext,
  renderModelContext,
  summaryText,
  unwrap,
} from '../../agent/index';
import { toAnthropicRequest } from '../../activities/models/anthropic-messages';
import { history, invocation } from '../support/random-history';
import { FAKE_INVOCATION, tickingClock } from '../support/scripted-deps';

const count = (m: ContextMessage) => countMessageTokens(m);

/** Every tool call in `ms` is followed by its results, and every result follows its call. */
function assertNoOrphans(ms: readonly ContextMessage[]) {
  ms.forEach((m, i) => {
    const u = unwrap(m);
    if (u.kind === 'model_output' && u.toolCalls.length && i < ms.length - 1) expect(unwrap(ms[i + 1]).kind).toBe('tool_results');
    if (u.kind === 'tool_results') expect(i > 0 && unwrap(ms[i - 1]).kind).toBe('model_output');
  });
}

test('the cut is at a group boundary, keeps the newest group, and the summary renders in place of what it covers', () => {
  fc.assert(
    fc.property(history, fc.integer({ min: 0, max: 2000 }), (entries, keep) => {
      const rendered = renderLiveContext(entries);
      const through = chooseCompaction(rendered, keep, count);
      if (through === undefined) return;
      const state = new AgentState(() => 0, { entries, nextSeq: entries[entries.length - 1].seq + 1 });
      const entry = state.appendCompaction({ summary: 'S', throughSeq: through, invocation }); // throws on a split pair
      const after = renderLiveContext(state.entries);
      expect(after[0]).toEqual({ kind: 'system', instruction: 'system instruction' });
      expect(after[1]).toEqual({ kind: 'summary', summary: 'S', throughSeq: through });
      const body = after.slice(2);
      expect(body.length).toBeGreaterThan(0);
      for (const m of body) expect((unwrap(m) as { seq: number }).seq).toBeGreaterThan(through);
      // Exactly the messages after the cut, as they were.
      expect(body).toEqual(rendered.filter((m) => m.kind !== 'system' && (unwrap(m) as { seq: number }).seq > through));
      assertNoOrphans(body);
      // The same prefix at a later bound: what a provider cached stays valid until the next compaction.
      state.appendModelInput({ sections: [{ title: 'Input', content: 'later' }] });
      expect(renderLiveContext(state.entries).slice(0, 2)).toEqual(after.slice(0, 2));
      // At a bound before the compaction, nothing changes.
      expect(renderLiveContext(state.entries, { uptoSeq: entry.seq - 1 })).toEqual(rendered);
    }),
    { numRuns: 300 },
  );
});

function turns(state: AgentState, n: number, size = 400) {
  for (let t = 1; t <= n; t++) {
    state.appendModelInput({ sections: [{ title: 'Input', content: `turn ${t} ${'x'.repeat(size)}` }] });
    state.appendModelOutput({ contents: [], toolCalls: [{ toolName: 'look', toolCallId: `c${t}`, rawArguments: '{}' }], invocation });
    state.appendToolResults({ results: [{ toolName: 'look', toolCallId: `c${t}`, status: 'Success', result: 'y'.repeat(size) }] });
    state.appendModelOutput({ contents: [`answer ${t}`], toolCalls: [], invocation });
  }
}

test('a compaction entry covers more than the one before, ends before itself, and never cuts a call from its results', () => {
  const state = new AgentState(() => 0);
  turns(state, 2);
  const bad = (throughSeq: number) => () => state.appendCompaction({ summary: 'S', throughSeq, invocation });
  expect(bad(2)).toThrow(HistoryValidationError); // #2 is a call whose results are #3
  expect(bad(99)).toThrow(/up to #8/);
  expect(() => state.appendCompaction({ summary: ' ', throughSeq: 4, invocation })).toThrow(/summary/);
  state.appendCompaction({ summary: 'S1', throughSeq: 4, invocation });
  expect(bad(4)).toThrow(/summarised already/);
  // The second summary stands for everything through #8, the first summary included.
  state.appendCompaction({ summary: 'S2', throughSeq: 8, invocation });
  const rendered = renderLiveContext(state.entries);
  expect(rendered).toEqual([{ kind: 'summary', summary: 'S2', throughSeq: 8 }]);
  expect(summaryText({ kind: 'summary', summary: 'S2', throughSeq: 8 })).toMatch(/#1–#8[\s\S]*S2$/);
});

test('the summary call is told the previous summary and the entries after it, as a transcript', () => {
  const state = new AgentState(() => 0);
  turns(state, 3, 10);
  state.appendCompaction({ summary: 'first summary', throughSeq: 4, invocation });
  const sections = compactionSections(state.entries, state.lastSeq, 8);
  expect(sections.map((s) => s.title)).toEqual(['Previous summary (entries #1–#4)', 'Conversation to summarise (entries #5–#8)', 'Task']);
  expect(sections[0].content).toBe('first summary');
  expect(sections[1].content).toContain('#5 user: turn 2');
  expect(sections[1].content).toContain('#6 agent called look({})');
  expect(sections[1].content).toContain('#7 look → Success: yyyyyyyyyy');
  expect(sections[1].content).not.toContain('turn 3');
  expect(COMPACTION_INSTRUCTION).toMatch(/summary/);
});

test('policy compact: over the threshold the context asks for a compaction and is never trimmed; policy trim trims as before', () => {
  const state = new AgentState(() => 0);
  turns(state, 6);
  state.appendModelInput({ sections: [{ title: 'Input', content: 'now' }] });
  const uptoSeq = state.lastSeq;
  const compact = renderModelContext(state.entries, { uptoSeq, maxInputTokens: 1000, compactAt: 0.8 });
  expect(compact.dropped).toBe(0);
  expect(compact.compactThrough).toBeDefined();
  expect(compact.messages).toHaveLength(renderLiveContext(state.entries).length);
  const done = renderModelContext(state.entries, { uptoSeq, maxInputTokens: 1000, compactAt: 0.8, compactionsDone: true });
  expect(done.compactThrough).toBeUndefined();
  expect(done.dropped).toBe(0);
  const trimmed = renderModelContext(state.entries, { uptoSeq, maxInputTokens: 1000 });
  expect(trimmed.compactThrough).toBeUndefined();
  expect(trimmed.dropped).toBeGreaterThan(0);
  // Within the threshold: nothing to do.
  expect(renderModelContext(state.entries, { uptoSeq, maxInputTokens: 100_000, compactAt: 0.8 }).compactThrough).toBeUndefined();
});

/** A model that asks for a compaction the first time, then answers; a compact dep that answers or fails. */
/** `lastSeq`: the agent's last entry before the compaction (the model asks for one until a call sees more). */
function compactingDeps(compact: StepDeps['compact'], lastSeq = 9) {
  const calls: ModelCallRequest[] = [];
  const answer: ModelCallResult = { contents: ['done'], toolCalls: [], invocation: FAKE_INVOCATION };
  const deps: StepDeps = {
    async callModel(request) {
      calls.push(request);
      const needed: CompactionNeeded = { compactThrough: 4, estimatedInputTokens: 900, inputBudget: 1000 };
      return request.compactAt !== undefined && !calls.some((c) => c.uptoSeq > lastSeq) ? needed : answer;
    },
    async executeTool() {
      throw new Error('no tools here');
    },
    compact,
  };
  return { deps, calls };
}

function agentWithTurns(config: Parameters<typeof Agent.create>[0]['config']): Agent {
  const agent = Agent.create({ config, clock: tickingClock() });
  turns(agent.state, 2);
  agent.enqueueInput({ text: 'now' });
  return agent;
}

test('the model step compacts once, then asks the model again with the summary in its history', async () => {
  const agent = agentWithTurns({ model: 'fake:m', context: { compactionModel: 'fake:cheap' } });
  const compactRequests: unknown[] = [];
  const { deps, calls } = compactingDeps(async (request) => {
    compactRequests.push(request);
    return { summary: 'the summary', invocation: FAKE_INVOCATION, usage: { inputTokens: 50, outputTokens: 5 } };
  });
  await agent.doStep(deps); // the input
  expect(await agent.doStep(deps)).toBe('ProgressMade');
  expect(compactRequests).toEqual([{ uptoSeq: 9, throughSeq: 4, model: 'fake:cheap', inputBudget: 1000, askedBy: 'fake:m' }]);
  expect(calls.map((c) => [c.uptoSeq, c.compactAt])).toEqual([
    [9, 0.8],
    [10, 0.8],
  ]);
  const kinds = agent.state.entries.slice(-2).map((e) => e.kind);
  expect(kinds).toEqual(['compaction', 'model_output']);
  expect(agent.state.entries.filter((e) => e.kind === 'compaction')).toHaveLength(1);
  // Its usage counts with the agent's (2 turns of 2 calls, the summary call, the answer).
  expect(agent.status({ stopping: false }).usage).toMatchObject({ modelCalls: 6, inputTokens: 50, cacheHitRatio: 0 });
});

test('a failed summary call blocks the agent on its error, records no summary but the failure, and a retry compacts again', async () => {
  const agent = agentWithTurns({ model: 'fake:m' });
  let fail = true;
  const { deps } = compactingDeps(async () => {
    if (fail) throw Object.assign(new Error('overloaded'), { code: 'ModelError.Overloaded' });
    return { summary: 'the summary', invocation: FAKE_INVOCATION };
  }, 10); // the failure's entry is #10
  await agent.doStep(deps);
  expect(await agent.doStep(deps)).toBe('BlockedOnError');
  expect(agent.lastError).toMatchObject({
    code: 'ModelError.Overloaded',
    message: expect.stringMatching(/^Compacting the context with fake:m failed: overloaded/),
  });
  expect(agent.state.entries.some((e) => e.kind === 'compaction')).toBe(false);
  expect(agent.state.entries.at(-1)).toMatchObject({
    kind: 'model_failure',
    seq: 10,
    call: 'compaction',
    code: 'ModelError.Overloaded',
    message: 'overloaded',
  });
  fail = false;
  agent.clearError();
  expect(await agent.doStep(deps)).toBe('ProgressMade');
  expect(agent.state.entries.filter((e) => e.kind === 'compaction')).toHaveLength(1);
});

test('policy trim asks for no compaction; without the patch a compaction request blocks instead of trimming', async () => {
  const trim = agentWithTurns({ model: 'fake:m', context: { policy: 'trim' } });
  const { deps, calls } = compactingDeps(async () => ({ summary: 's', invocation: FAKE_INVOCATION }));
  await trim.doStep(deps);
  expect(await trim.doStep(deps)).toBe('ProgressMade');
  expect(calls[0].compactAt).toBeUndefined();

  const old = agentWithTurns({ model: 'fake:m' });
  const { deps: oldDeps } = compactingDeps(async () => ({ summary: 's', invocation: FAKE_INVOCATION }));
  oldDeps.since = () => false;
  await old.doStep(oldDeps);
  expect(await old.doStep(oldDeps)).toBe('BlockedOnError');
  expect(old.lastError?.code).toBe('COMPACTION_UNAVAILABLE');
});

test('Anthropic: a breakpoint after the summary, at most four in all, with the TTL the agent chose', () => {
  const state = new AgentState(() => 0);
  state.setSystemInstruction('sys');
  turns(state, 3, 10);
  state.appendCompaction({ summary: 'S', throughSeq: 4, invocation });
  state.appendModelInput({ sections: [{ title: 'Input', content: 'now' }] });
  const [system, ...messages] = renderLiveContext(state.entries);
  const tool = { name: 't', description: 'd', parameters: { type: 'object' } };
  const req = toAnthropicRequest(messages, (system as { instruction: string }).instruction, [tool], { providerId: 'anthropic', cache: true, cacheTtl: '1h' });
  const marked = [...(req.tools ?? []), ...(req.system ?? []), ...req.messages.flatMap((m) => m.content as Array<{ cache_control?: unknown }>)].filter(
    (b) => (b as { cache_control?: unknown }).cache_control,
  );
  expect(marked).toHaveLength(4);
  expect(req.tools![0].cache_control).toBeUndefined(); // the system prompt's breakpoint covers the tools
  const first = req.messages[0].content as Array<{ type: string; text: string; cache_control?: unknown }>;
  expect(first[0]).toEqual({
    type: 'text',
    text: summaryText({ kind: 'summary', summary: 'S', throughSeq: 4 }),
    cache_control: { type: 'ephemeral', ttl: '1h' },
  });
  for (const b of marked) expect((b as { cache_control: unknown }).cache_control).toEqual({ type: 'ephemeral', ttl: '1h' });
});
