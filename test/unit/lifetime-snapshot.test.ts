/**
 * The lifetime benchmark's old agents: a young agent's turns repeated to N entries must make a snapshot
 * that import reads (every invariant), with fresh numbers and tool call ids, and padded entries of the
 * size asked for; bad --sizes are refused with how to write them.
 */
import { mkdtempSync, readFileSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { AgentSnapshot, readSnapshot, rebuildNotebook } from '../../agent/index';
import { parseSizes, writeGrownSnapshot } from '../../bench/lifetime-snapshot';
import { FAKE_INVOCATION as invocation } from '../support/scripted-deps';

const at = '2026-01-01T00:00:00.000Z';
const young = AgentSnapshot.parse({
  format: 'livecontext.agent-snapshot',
  version: 1,
  config: { model: 'demo:offline' },
  entries: [
    { kind: 'system_instruction', seq: 1, timestamp: at, instruction: 'be brief' },
    { kind: 'model_input', seq: 2, timestamp: at, sections: [{ title: 'Input', content: 'hello' }], inputSeq: 1 },
    { kind: 'model_output', seq: 3, timestamp: at, contents: ['Hello!'], toolCalls: [], invocation },
    { kind: 'model_input', seq: 4, timestamp: at, sections: [{ title: 'Input', content: 'remember tea' }], inputSeq: 2 },
    {
      kind: 'model_output',
      seq: 5,
      timestamp: at,
      contents: ['Writing.'],
      toolCalls: [{ toolName: 'memory_notebook_replace', toolCallId: 'c1', rawArguments: '{"old_text":"","new_text":"- likes tea\\n"}' }],
      invocation,
    },
    { kind: 'tool_results', seq: 6, timestamp: at, results: [{ toolName: 'memory_notebook_replace', toolCallId: 'c1', status: 'Success', result: 'ok' }] },
    { kind: 'model_output', seq: 7, timestamp: at, contents: ['Done.'], toolCalls: [], invocation },
  ],
  nextSeq: 8,
  pendingToolResults: [],
  inbox: [],
  nextInputSeq: 3,
  consumedInputSeq: 2,
  acceptedKeys: [['k', 2]],
});

function grow(sizes: string) {
  const [spec] = parseSizes(sizes);
  const file = path.join(mkdtempSync(path.join(os.tmpdir(), 'lifetime-snapshot-')), 'grown.json');
  const written = writeGrownSnapshot(young, spec, file);
  const text = readFileSync(file, 'utf8');
  return { written, text, snapshot: readSnapshot(JSON.parse(text)) };
}

test('the young agent grown to 1,000 entries is a snapshot import reads, whole turns, fresh numbers and ids', () => {
  const { written, text, snapshot } = grow('1000');
  expect(written.bytes).toBe(Buffer.byteLength(text));
  expect(snapshot.entries).toHaveLength(written.entries);
  expect(written.entries).toBeGreaterThanOrEqual(1000);
  expect(written.entries).toBeLessThan(1000 + 4); // the last turn is whole, no more
  expect(snapshot.entries.map((e) => e.seq)).toEqual(snapshot.entries.map((_, i) => i + 1));
  expect(snapshot.nextSeq).toBe(written.entries + 1);
  const inputs = snapshot.entries.filter((e) => e.kind === 'model_input');
  expect(inputs.map((e) => e.inputSeq)).toEqual(inputs.map((_, i) => i + 1));
  expect(snapshot.consumedInputSeq).toBe(inputs.length);
  expect(snapshot.acceptedKeys).toBeUndefined(); // they named the young agent's inputs
  const ids = snapshot.entries.flatMap((e) => (e.kind === 'model_output' ? e.toolCalls.map((c) => c.toolCallId) : []));
  expect(new Set(ids).size).toBe(ids.length);
  expect(snapshot.entries.filter((e) => e.kind === 'system_instruction')).toHaveLength(1); // the head, once
  // The note is appended once and rewritten at every repetition: the notebook does not grow with the agent.
  expect(rebuildNotebook(snapshot.entries)).toBe('- likes tea\n');
});

test('entries padded to ~4 KiB each', () => {
  const { snapshot } = grow('100x4k');
  const sizes = snapshot.entries.slice(1).map((e) => JSON.stringify(e).length);
  for (const size of sizes) expect(Math.abs(size - 4096)).toBeLessThan(8);
});

test('sizes are read as given, and bad ones refused with the form to use', () => {
  expect(parseSizes('1000,100000x4k')).toEqual([
    { key: '1000', entries: 1000, label: '1,000' },
    { key: '100000x4k', entries: 100000, label: '100,000 × 4 KB', entryBytes: 4096 },
  ]);
  expect(() => parseSizes('1000,lots')).toThrow(/comma-separated.*e\.g\. 1000,100000x4k/);
  expect(() => parseSizes('5')).toThrow(/at least 10/);
});
