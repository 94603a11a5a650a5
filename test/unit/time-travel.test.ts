/**
 * Time travel's two pure rules: which entries are points to go back to (travelPoint: a turn's end or a
 * model input, with a reason naming the nearest ones otherwise), and which entries are still in force
 * after rewinds (visibleEntries), nested rewinds and a bound included.
 */
import { type HistoryEntry, rewoundBy, rewoundSeqs, travelPoint, visibleEntries } from '../../agent/index';
import { FAKE_INVOCATION } from '../support/scripted-deps';

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
