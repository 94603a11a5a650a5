/**
 * The pure parts of fork: which entries are valid points (travelPoint), and the fork's snapshot
 * (forkedSnapshot): the entries up to the point, input numbers, widgets rebuilt there, the fork's changes
 * and lineage — a snapshot every check accepts. And compare's side-by-side view.
 */
import { type AgentSnapshot, type HistoryEntry, SNAPSHOT_FORMAT, SNAPSHOT_VERSION, forkedSnapshot, readSnapshot, travelPoint } from '../../agent/index';
import { sideBySide, wrap } from '../../cli/compare-view';

const at = '2026-11-27T10:00:00.000Z';
const invocation = { providerId: 'openai', specification: 'openai-chat-completions', model: 'gpt-4.1-mini' };
const call = {
  toolName: 'memory_notebook_replace',
  toolCallId: 'c1',
  rawArguments: '{"old_text":"","new_text":"noted"}',
  arguments: { old_text: '', new_text: 'noted' },
};

/** Two turns: the first with a notebook tool call, the second answered at once; then a third input. */
const entries: HistoryEntry[] = [
  { seq: 1, timestamp: at, kind: 'system_instruction', instruction: 'Be brief.' },
  { seq: 2, timestamp: at, kind: 'model_input', inputSeq: 1, sections: [{ title: 'user', content: 'remember' }] },
  { seq: 3, timestamp: at, kind: 'model_output', contents: [], toolCalls: [call], invocation, usage: { inputTokens: 10, outputTokens: 2 } },
  { seq: 4, timestamp: at, kind: 'tool_results', results: [{ toolName: call.toolName, toolCallId: 'c1', status: 'Success', result: 'ok' }] },
  { seq: 5, timestamp: at, kind: 'model_output', contents: ['done'], toolCalls: [], invocation },
  { seq: 6, timestamp: at, kind: 'widget_write', widget: 'memory_notebook', write: { set: 'later' } },
  { seq: 7, timestamp: at, kind: 'model_input', inputSeq: 2, sections: [{ title: 'user', content: 'again' }] },
  { seq: 8, timestamp: at, kind: 'model_output', contents: ['again done'], toolCalls: [], invocation },
  { seq: 9, timestamp: at, kind: 'model_input', inputSeq: 3, sections: [{ title: 'user', content: 'ask me' }] },
  { seq: 10, timestamp: at, kind: 'turn_end', reason: 'ask_user', question: 'Which one?' },
];

const source: AgentSnapshot = {
  format: SNAPSHOT_FORMAT,
  version: SNAPSHOT_VERSION,
  config: {
    model: 'openai:gpt-4.1-mini',
    delegatedBy: { agentId: 'parent', toolCallId: 'p1', depth: 1 },
    a2aPush: [{ id: 'hook', inputSeq: 3, url: 'https://caller.example/hook' }],
  },
  entries,
  nextSeq: 11,
  pendingToolResults: [],
  inbox: [{ inputSeq: 4, sections: [{ title: 'user', content: 'queued' }], receivedAt: at }],
  nextInputSeq: 5,
  consumedInputSeq: 3,
  approvals: {},
  widgets: { memory_notebook: { content: 'later' } },
  acceptedKeys: [['k1', 1]],
};

test('travelPoint: a turn end, an answer that ends its turn, or an input; otherwise the reason and the nearest points', () => {
  expect(travelPoint(entries, 2)).toEqual({ ok: true, seq: 2, kind: 'input' });
  expect(travelPoint(entries, 5)).toEqual({ ok: true, seq: 5, kind: 'turn' });
  expect(travelPoint(entries, 10)).toEqual({ ok: true, seq: 10, kind: 'turn' });
  expect(travelPoint(entries, 4)).toEqual({
    ok: false,
    reason: "Entry #4 is a tool_results entry: a valid point is a turn's end (an answer, or a turn_end) or a model input. Nearest valid points: #2, #5.",
    nearest: { before: 2, after: 5 },
  });
  expect(travelPoint(entries, 3)).toMatchObject({ ok: false, reason: expect.stringContaining('tool loop') }); // its tools have not run
  expect(travelPoint(entries, 42)).toMatchObject({ ok: false, reason: expect.stringContaining('#42 is beyond the last entry (#10)') });
  expect(travelPoint(entries, 0)).toMatchObject({ ok: false });
  expect(travelPoint(entries, 2.5)).toMatchObject({ ok: false });
});

test('forkedSnapshot: the entries up to the point, its widgets and input numbers there, the changes and lineage', () => {
  const forkedFrom = { agentId: 'src', runId: 'run-1', seq: 5 };
  const fork = readSnapshot(forkedSnapshot(source, { entries }, forkedFrom, { model: 'anthropic:claude-sonnet-4-6', tools: ['lookup'] }, at));
  expect(fork.entries).toEqual(entries.slice(0, 5));
  expect(fork.nextSeq).toBe(6);
  expect(fork.widgets.memory_notebook).toEqual({ content: 'noted' }); // as at #5, not 'later'
  expect([fork.consumedInputSeq, fork.nextInputSeq, fork.inbox]).toEqual([1, 2, []]);
  expect(fork.acceptedKeys).toBeUndefined();
  expect(fork.config).toEqual({ model: 'anthropic:claude-sonnet-4-6', tools: ['lookup'], forkedFrom }); // no delegatedBy: not the parent's; no a2aPush: not the source's tasks
  expect(fork.sourceAgentId).toBe('src');
});

test('forkedSnapshot at an input runs it again; a new instruction is an entry after the point', () => {
  const forkedFrom = { agentId: 'src', runId: 'run-1', seq: 7 };
  const fork = readSnapshot(forkedSnapshot(source, { entries }, forkedFrom, { systemInstruction: 'Be long.' }, at));
  expect(fork.entries.at(-2)).toEqual(entries[6]);
  expect(fork.entries.at(-1)).toEqual({ seq: 8, timestamp: at, kind: 'system_instruction', instruction: 'Be long.' });
  expect([fork.consumedInputSeq, fork.nextSeq]).toEqual([2, 9]);
  expect(fork.widgets.memory_notebook).toEqual({ content: 'later' }); // the host's write at #6
  // The same instruction as in force is not recorded again.
  const same = forkedSnapshot(source, { entries }, forkedFrom, { systemInstruction: 'Be brief.' }, at);
  expect(same.entries.at(-1)!.seq).toBe(7);
});

test('compare prints each model in a column of its own', () => {
  expect(wrap('one two three four', 9)).toEqual(['one two', 'three', 'four']);
  expect(wrap('abcdefghijkl', 5)).toEqual(['abcde', 'fghij', 'kl']);
  const usage = { inputTokens: 10, outputTokens: 5, cachedInputTokens: 0, modelCalls: 1 };
  const text = sideBySide(
    [
      { model: 'openai:a', agentId: 'x.1.openai-a', status: 'answered', text: 'first answer', usage: { ...usage, costUsd: 0.001 }, durationMs: 1500 },
      { model: 'anthropic:b', agentId: 'x.1.anthropic-b', status: 'error', text: 'blocked', usage: { ...usage, costUsd: null }, durationMs: null },
    ],
    60,
  );
  const lines = text.split('\n');
  expect(lines[0]).toMatch(/^openai:a\s+│ anthropic:b$/);
  expect(text).toContain('first answer');
  expect(text).toContain('[error] blocked');
  expect(text).toMatch(/cost \$0\.0010\s+│ cost -/);
  expect(text).toMatch(/duration 1\.5 s\s+│ duration -/);
});
