/** Recall does not find what a rewind took out: a segment's term index leaves out the entries its own rewinds took out. */
import type { HistoryEntry } from '../../agent/index';
import { buildTermIndex } from '../../common/archive/term-index';
import { FAKE_INVOCATION } from '../support/scripted-deps';

const at = (seq: number) => ({ seq, timestamp: '2026-01-01T00:00:00.000Z' });
const input = (seq: number, text: string): HistoryEntry => ({ ...at(seq), kind: 'model_input', sections: [{ title: 'User', content: text }] });
const answer = (seq: number, text: string): HistoryEntry => ({
  ...at(seq),
  kind: 'model_output',
  contents: [text],
  toolCalls: [],
  invocation: FAKE_INVOCATION,
});

test('entries a rewind in the same segment took out are not indexed; the rest are', () => {
  const entries = [
    input(1, 'alpha question'),
    answer(2, 'alpha answer'),
    input(3, 'bravo question'),
    answer(4, 'bravo answer'),
    { ...at(5), kind: 'rewind', toSeq: 2 } as HistoryEntry,
    input(6, 'charlie question'),
  ];
  const { terms } = buildTermIndex('h', entries);
  expect(terms.alpha).toEqual([1, 2]);
  expect(terms.charlie).toEqual([6]);
  expect(terms.bravo).toBeUndefined();
  expect(buildTermIndex('h', entries.slice(0, 4)).terms.bravo).toEqual([3, 4]); // without the rewind, indexed
});
