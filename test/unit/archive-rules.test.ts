/**
 * The archive's pure rules (agent/archive.ts): where the working set is cut (whole turns only, never the
 * turn in progress, segments of bounded size), what the index carries on from the entries that leave
 * (instruction, widgets, usage, today's usage for budgets, the newest archived input), and how the agent
 * and its snapshot read with an archive.
 */
import {
  Agent,
  AgentState,
  type ArchiveIndex,
  type HistoryEntry,
  type SegmentRef,
  archiveAfterSeal,
  chooseSeal,
  emptyArchive,
  entryBytes,
  readSnapshot,
  sealPlan,
  segmentsForContext,
} from '../../agent/index';
import { FAKE_INVOCATION } from '../support/scripted-deps';

const clock = () => Date.UTC(2026, 0, 1, 12);
const KEY = 'a'.repeat(64);

/** `turns` turns of an input and an answer of about `bytes` each; a notebook write in turn 1. */
function grown(turns: number, bytes = 1000): AgentState {
  const state = new AgentState(clock);
  state.setSystemInstruction('Be kind.');
  for (let i = 1; i <= turns; i++) {
    state.appendModelInput({ sections: [{ title: 'Input', content: `q${i} ${'x'.repeat(bytes)}` }], inputSeq: i });
    if (i === 1) {
      state.appendModelOutput({
        contents: [],
        toolCalls: [{ toolName: 'memory_notebook_replace', toolCallId: 'n1', rawArguments: '{"old_text":"","new_text":"old fact"}' }],
        invocation: FAKE_INVOCATION,
      });
      state.appendToolResults({ results: [{ toolName: 'memory_notebook_replace', toolCallId: 'n1', status: 'Success', result: 'ok' }] });
    }
    state.appendModelOutput({
      contents: [`a${i} ${'y'.repeat(bytes)}`],
      toolCalls: [],
      invocation: FAKE_INVOCATION,
      usage: { inputTokens: 10, outputTokens: 5 },
    });
  }
  return state;
}

function refFor(entries: readonly HistoryEntry[]): SegmentRef {
  return { key: KEY, hash: KEY, fromSeq: entries[0].seq, toSeq: entries[entries.length - 1].seq, entries: entries.length, bytes: 100, tokens: 25 };
}

test('nothing is sealed while the working set is within twice its budget', () => {
  const state = grown(5);
  const sizes = state.entries.map(entryBytes);
  const total = sizes.reduce((a, b) => a + b, 0);
  expect(chooseSeal(state.entries, sizes, Math.ceil(total / 2))).toBeUndefined();
  expect(chooseSeal(state.entries, sizes, Math.floor(total / 2) - 1)).toBeDefined();
});

test('cuts fall just before an input, keep about the budget, and never take the turn in progress', () => {
  const state = grown(40);
  const entries = state.entries;
  const sizes = entries.map(entryBytes);
  const keep = 8 * 1024;
  const plan = sealPlan(entries, sizes, keep, { maxSegmentBytes: 16 * 1024 });
  expect(plan.length).toBeGreaterThan(2);
  for (const piece of plan) {
    expect(entries[piece.end + 1].kind).toBe('model_input');
    expect(piece.bytes).toBeLessThanOrEqual(16 * 1024 + 2 * 1100); // at most one turn past the size
  }
  const left = sizes.slice(plan[plan.length - 1].end + 1).reduce((a, b) => a + b, 0);
  expect(left).toBeLessThanOrEqual(keep + 2 * 1100);
  // A turn in progress (an input, a call waiting for results) is never sealed, however large.
  state.appendModelInput({ sections: [{ title: 'Input', content: 'z'.repeat(60_000) }], inputSeq: 41 });
  const all = state.entries;
  const last = sealPlan(all, all.map(entryBytes), keep).at(-1)!;
  expect(all[last.end].seq).toBeLessThan(all[all.length - 1].seq);
  expect(all[last.end + 1].kind).toBe('model_input');
});

test('the index carries on the instruction, widgets, usage, today and the newest input of what leaves', () => {
  const state = grown(10);
  const plan = sealPlan(state.entries, state.entries.map(entryBytes), 2000);
  const leaving = state.entries.slice(0, plan[0].end + 1);
  const index = archiveAfterSeal(emptyArchive(), leaving, refFor(leaving), 0);
  expect(index.systemInstruction).toBe('Be kind.');
  expect(index.widgets.memory_notebook).toEqual({ content: 'old fact' });
  const calls = leaving.filter((e) => e.kind === 'model_output').length;
  expect(index.usage.modelCalls).toBe(calls);
  expect(index.day).toEqual({ day: '2026-01-01', tokens: 15 * (calls - 1), costUsd: 0, modelCalls: calls });
  expect(index.inputSeq).toBe((leaving.filter((e) => e.kind === 'model_input').at(-1) as { inputSeq: number }).inputSeq);
  expect(index.entries).toBe(leaving.length);
  // Entries before a granted budget do not count towards today's.
  expect(archiveAfterSeal(emptyArchive(), leaving, refFor(leaving), leaving.at(-1)!.seq).day).toBeUndefined();
});

test('an agent with an archive: its status, outcomes and snapshot read through the index', () => {
  const state = grown(12);
  const agent = Agent.fromSnapshot({ ...Agent.create({ config: { model: 'fake:m' }, clock }).toSnapshot() }, clock);
  expect(agent.state.archive).toBeUndefined();
  const cut = state.sealCandidate(2000)!;
  const leaving = state.entries.slice(0, cut.count);
  state.sealed(refFor(leaving), 0);
  expect(state.entries[0].seq).toBe(cut.toSeq + 1);
  expect(state.entryCount).toBe(state.lastSeq);
  expect(state.systemInstruction).toBe('Be kind.');

  const snapshot = {
    ...Agent.create({ config: { model: 'fake:m' }, clock }).toSnapshot(),
    version: 2 as const,
    entries: [...state.entries],
    archive: state.archive,
    nextSeq: state.nextSeq,
    nextInputSeq: 13,
    consumedInputSeq: 12,
  };
  const restored = Agent.fromSnapshot(readSnapshot(snapshot), clock);
  const status = restored.status({ stopping: false });
  expect(status.entryCount).toBe(state.lastSeq);
  expect(status.usage.modelCalls).toBe(13);
  expect(restored.turnOutcome(1)).toEqual({ inputSeq: 1, status: 'archived' });
  expect(restored.turnOutcome(12)).toMatchObject({ status: 'answered' });
  expect(restored.toSnapshot()).toMatchObject({ version: 2, archive: state.archive });

  // A snapshot whose archive and working set disagree is refused.
  expect(() => readSnapshot({ ...snapshot, version: 1 })).toThrow(/lacks|has an archive/);
  expect(() => readSnapshot({ ...snapshot, entries: state.entries.slice(1) })).toThrow(/does not follow the archive/);
  expect(() => readSnapshot({ ...snapshot, archive: { ...(state.archive as ArchiveIndex), throughSeq: state.entries[0].seq } })).toThrow(/also in the archive/);
});

test('a model call names the newest segment; older ones only while they may fit its window', () => {
  const index = {
    ...emptyArchive(),
    segments: [1, 2, 3].map((i) => ({ ...refFor([{ seq: i * 10 } as HistoryEntry]), fromSeq: i * 10 - 9, toSeq: i * 10, tokens: 100 })),
  };
  expect(segmentsForContext(index, index.segments[2].toSeq).map((r) => r.toSeq)).toEqual([30]);
  expect(segmentsForContext(index, 15, 150).map((r) => r.toSeq)).toEqual([20, 30]);
  expect(segmentsForContext(index, 0).map((r) => r.toSeq)).toEqual([10, 20, 30]);
  expect(segmentsForContext(undefined, 0)).toEqual([]);
});
