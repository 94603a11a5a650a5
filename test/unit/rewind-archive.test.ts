/**
 * A rewind to an archived entry (agent/archive.ts): the state at the point as the rewindPoint activity
 * reads it from its segment, the index after the rewind (the state at the point, the archived seqs taken
 * out), and later seals carrying the range on — merged, so that one rewind stays one range.
 */
import {
  AgentState,
  type HistoryEntry,
  type SegmentRef,
  archiveAfterRewind,
  archiveAfterSeal,
  archivedPointState,
  archivedRewound,
  emptyArchive,
  withoutArchivedRewound,
} from '../../agent/index';
import { FAKE_INVOCATION } from '../support/scripted-deps';

const clock = () => Date.UTC(2026, 0, 1, 12);
const KEY = 'a'.repeat(64);
const refFor = (entries: readonly HistoryEntry[]): SegmentRef => ({
  key: KEY,
  hash: KEY,
  fromSeq: entries[0].seq,
  toSeq: entries[entries.length - 1].seq,
  entries: entries.length,
  bytes: 100,
  tokens: 25,
});

function turn(state: AgentState, text: string, note?: string) {
  state.appendModelInput({ sections: [{ title: 'Input', content: text }] });
  if (note) {
    state.appendModelOutput({
      contents: [],
      toolCalls: [{ toolName: 'memory_notebook_replace', toolCallId: `n-${text}`, rawArguments: JSON.stringify({ old_text: '', new_text: note }) }],
      invocation: FAKE_INVOCATION,
    });
    state.appendToolResults({ results: [{ toolName: 'memory_notebook_replace', toolCallId: `n-${text}`, status: 'Success', result: 'ok' }] });
  }
  state.appendModelOutput({ contents: [`answer to ${text}`], toolCalls: [], invocation: FAKE_INVOCATION, usage: { inputTokens: 10, outputTokens: 5 } });
}

test('the state at an archived point, the index after the rewind, and a later seal carrying the range on', () => {
  const state = new AgentState(clock);
  state.setSystemInstruction('Be kind.'); // 1
  turn(state, 'alpha'); // 2, 3
  turn(state, 'bravo', 'a note'); // 4 in, 5 call, 6 results, 7 answer
  state.setSystemInstruction('Be brief.'); // 8
  turn(state, 'charlie'); // 9, 10
  const sealed = [...state.entries];
  const before = emptyArchive();
  state.sealed(refFor(sealed), 0);
  turn(state, 'delta'); // 11, 12 in the working set
  expect(state.archive).toMatchObject({ throughSeq: 10, systemInstruction: 'Be brief.' });

  // As the activity reads it: the segment's before and its entries up to the point.
  const at = archivedPointState(state.archive!, { before, entries: sealed }, 3, 0);
  expect(at.systemInstruction).toBe('Be kind.');
  expect(JSON.stringify(at.widgets)).not.toContain('a note');
  expect(at.day).toMatchObject({ modelCalls: 1, tokens: 15 });
  expect(JSON.stringify(archivedPointState(state.archive!, { before, entries: sealed }, 7, 0).widgets)).toContain('a note');

  // To the last archived entry: no archived entry is taken out (the rewind entry takes out the working ones).
  const atLast = archivedPointState(state.archive!, { before, entries: sealed }, 10, 0);
  expect(archiveAfterRewind(state.archive!, 10, atLast).rewound).toBeUndefined();

  state.rewindArchive(3, at);
  const rewind = state.appendRewind({ toSeq: 3 }); // 13
  expect(state.archive!.rewound).toEqual([[4, 10]]);
  expect(state.archive!.usage.modelCalls).toBe(4); // what was spent stays spent
  expect(state.systemInstruction).toBe('Be kind.');
  expect(state.visible).toEqual([rewind]); // the working set's entries before the rewind are out too
  expect(archivedRewound(state.archive, 4)).toBe(true);
  expect(archivedRewound(state.archive, 3)).toBe(false);
  expect(withoutArchivedRewound(state.archive, sealed).map((e) => e.seq)).toEqual([1, 2, 3]);

  // The rewind and the working set's entries it took out are sealed: one range, the state stays the point's.
  turn(state, 'echo'); // 14, 15
  const working = [...state.entries];
  const after = archiveAfterSeal(state.archive!, working, refFor(working), 0);
  expect(after.rewound).toEqual([[4, 12]]);
  expect(after.systemInstruction).toBe('Be kind.');
  expect(JSON.stringify(after.widgets)).not.toContain('a note');
  expect(after.usage.modelCalls).toBe(6);

  // A fork rebuilding the index from the shared segments takes the source's ranges within them.
  const rebuilt = archiveAfterSeal(emptyArchive(), sealed, refFor(sealed), 0, after.rewound);
  expect(rebuilt.rewound).toEqual([[4, 10]]);
  expect(rebuilt.systemInstruction).toBe('Be kind.');
});
