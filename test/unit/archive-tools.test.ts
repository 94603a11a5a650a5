/**
 * The built-in `recall` and `expand` tools on a real folder archive and an agent's past given in
 * memory: what the model reads back, how it is bounded, and when the tools are offered at all.
 */
import { mkdtempSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import type { HistoryEntry } from '../../agent/index';
import { type ArchiveIndex, archiveAfterSeal, emptyArchive } from '../../agent/archive';
import { type AgentPast, archiveTools } from '../../activities/tools/archive-tools';
import { EXPAND_MAX_CHARS, entryAsText, expandText, recallText } from '../../activities/tools/archive-text';
import type { ToolContext } from '../../activities/tools/define-tool';
import { ToolRegistry } from '../../activities/tools/registry';
import { workspaceTools } from '../../activities/tools/workspace-tools';
import { offersArchiveTools } from '../../activities/model-call/archive-offer';
import type { CallModelInput } from '../../activities/types';
import { ArchiveStore } from '../../common/archive/index';
import { FileBlobStore } from '../../common/codec/blob-store';

const invocation = { providerId: 'scripted', specification: 'scripted', model: 'm' };
const at = (seq: number) => new Date(Date.UTC(2026, 0, 1, 0, 0, seq)).toISOString();
const input = (seq: number, content: string): HistoryEntry => ({ kind: 'model_input', seq, timestamp: at(seq), sections: [{ title: 'Input', content }] });
const answer = (seq: number, text: string): HistoryEntry => ({ kind: 'model_output', seq, timestamp: at(seq), contents: [text], toolCalls: [], invocation });

/** An agent whose first `archivedTurns` turns are sealed (one segment each) and the rest are its working set. */
async function agentWith(turns: Array<[string, string]>, archivedTurns: number) {
  const archive = new ArchiveStore({ store: new FileBlobStore(mkdtempSync(path.join(tmpdir(), 'lc-archive-tools-'))) });
  const entries = turns.flatMap(([q, a], i) => [input(2 * i + 1, q), answer(2 * i + 2, a)]);
  let index: ArchiveIndex = emptyArchive();
  for (let i = 0; i < archivedTurns; i++) {
    const sealed = entries.slice(2 * i, 2 * i + 2);
    const ref = await archive.writeSegment({ before: { systemInstruction: '', widgets: index.widgets }, entries: sealed });
    index = archiveAfterSeal(index, sealed, ref, 0);
  }
  const working = entries.slice(2 * archivedTurns);
  const past: AgentPast = {
    archive: async () => (archivedTurns ? index : null),
    async working({ afterSeq, uptoSeq = Infinity, limit = Infinity }) {
      return { entries: working.filter((e) => e.seq > afterSeq && e.seq <= uptoSeq).slice(0, limit), lastSeq: entries[entries.length - 1].seq };
    },
  };
  const [recall, expand] = archiveTools({ archive, past: () => past });
  const ctx = {
    agentId: 'agent-1',
    toolCallId: 'c1',
    idempotencyKey: 'agent-1/c1',
    workspaceRoot: '/nowhere',
    signal: new AbortController().signal,
    heartbeat() {},
  } as ToolContext;
  const text = async (out: unknown) => {
    const o = await out;
    return typeof o === 'string' ? o : (o as { text: string }).text;
  };
  return {
    recall: (args: { query: string; limit?: number }) => text(recall.execute(args, ctx)),
    expand: (args: { fromSeq: number; toSeq: number }) => text(expand.execute(args, ctx)),
  };
}

const chatter = (n: number): Array<[string, string]> => Array.from({ length: n }, (_, i) => [`Status update ${i}.`, `Acknowledged ${i}.`]);

describe('recall', () => {
  test('finds an archived fact and a working-set one, with their seq, and says how to read around them', async () => {
    const turns = chatter(8);
    turns[0] = ['My locker code is 4711.', 'Noted.'];
    turns[6] = ['The locker moved to the second floor.', 'Noted.'];
    turns[7] = ['Where is my locker and what is its code?', ''];
    const agent = await agentWith(turns, 5);
    const out = await agent.recall({ query: 'locker code' });
    expect(out).toBe(
      [
        '2 entries match "locker code" (most words matched first, then newest):',
        '',
        '#1 · input · 2026-01-01T00:00:01.000Z',
        'My locker code is 4711.',
        '',
        '#13 · input · 2026-01-01T00:00:13.000Z',
        'The locker moved to the second floor.',
        '',
        'To read an entry in full with what came around it: expand({"fromSeq": 1, "toSeq": 3}).',
      ].join('\n'),
    );
    // The turn in progress (seq 15, the question itself) is not a match: the model has it in front of it.
  });

  test('nothing found says so and suggests what to try', async () => {
    const agent = await agentWith(chatter(3), 2);
    await expect(agent.recall({ query: 'pelican' })).resolves.toBe(
      'Nothing earlier in this conversation matches "pelican". Recall matches whole words (a word of 4 or more letters also finds longer words it begins); try other words, or fewer.',
    );
  });

  test('a query without a searchable word is refused, saying what recall searches for', async () => {
    const agent = await agentWith(chatter(3), 2);
    await expect(agent.recall({ query: 'is it the' })).rejects.toThrow(
      '"is it the" has no word recall can search for: use words of 3 or more letters (or numbers) that are not among the most common ones.',
    );
  });

  test('an agent without an archive searches its working set', async () => {
    const turns = chatter(3);
    turns[0] = ['The pelican is called Bob.', 'ok'];
    const agent = await agentWith(turns, 0);
    await expect(agent.recall({ query: 'pelican' })).resolves.toContain('#1 · input');
  });
});

describe('expand', () => {
  test('a range across the archive and the working set, verbatim', async () => {
    const agent = await agentWith(chatter(4), 2);
    await expect(agent.expand({ fromSeq: 3, toSeq: 6 })).resolves.toBe(
      [
        'Entries 3–6 of the requested 3–6, verbatim:',
        '',
        '#3 · input · 2026-01-01T00:00:03.000Z\nStatus update 1.',
        '',
        '#4 · model · 2026-01-01T00:00:04.000Z\nAcknowledged 1.',
        '',
        '#5 · input · 2026-01-01T00:00:05.000Z\nStatus update 2.',
        '',
        '#6 · model · 2026-01-01T00:00:06.000Z\nAcknowledged 2.',
      ].join('\n'),
    );
  });

  test('at most 40 entries per call, saying how to ask for the rest; past the end says where history ends', async () => {
    const agent = await agentWith(chatter(50), 30);
    const out = await agent.expand({ fromSeq: 1, toSeq: 100 });
    expect(out.startsWith('Entries 1–40 of the requested 1–100, verbatim:')).toBe(true);
    expect(out.endsWith('[Not shown: seq 41–100 (at most 40 entries or about 30 KB per call). For more: expand({"fromSeq": 41, "toSeq": 100}).]')).toBe(true);
    await expect(agent.expand({ fromSeq: 95, toSeq: 120 })).resolves.toMatch(
      /^Entries 95–100 of the requested 95–120, verbatim:[\s\S]*\[This agent's history ends at seq 100\.\]$/,
    );
    await expect(agent.expand({ fromSeq: 200, toSeq: 210 })).resolves.toBe("No entries in seq 200–210: this agent's history ends at seq 100.");
    await expect(agent.expand({ fromSeq: 9, toSeq: 3 })).rejects.toThrow('toSeq (3) is before fromSeq (9); give fromSeq ≤ toSeq.');
  });

  test('about 30 KB per call; a single larger entry is cut, saying so', () => {
    const big = (seq: number) => answer(seq, 'x'.repeat(12_000));
    const three = expandText([big(1), big(2), big(3)], { fromSeq: 1, toSeq: 3 }, 3);
    expect(three).toContain('#2 · model');
    expect(three).not.toContain('#3 · model');
    expect(three).toContain('For more: expand({"fromSeq": 3, "toSeq": 3})');
    const huge = expandText([answer(1, 'y'.repeat(50_000))], { fromSeq: 1, toSeq: 1 }, 1);
    expect(huge).toContain(`[entry #1 cut: ${entryAsText(answer(1, 'y'.repeat(50_000))).length} characters in all, ${EXPAND_MAX_CHARS} shown]`);
    expect(huge.length).toBeLessThan(EXPAND_MAX_CHARS + 500);
  });

  test('every kind of entry reads as text', () => {
    const entries: HistoryEntry[] = [
      { kind: 'system_instruction', seq: 1, timestamp: at(1), instruction: 'Be brief.' },
      { ...input(2, 'Read the file.'), sender: 'alice' } as HistoryEntry,
      {
        kind: 'model_output',
        seq: 3,
        timestamp: at(3),
        contents: ['Reading it.'],
        toolCalls: [{ toolName: 'read_file', toolCallId: 'c1', rawArguments: '{"path":"a.txt"}' }],
        invocation,
      },
      { kind: 'tool_results', seq: 4, timestamp: at(4), results: [{ toolName: 'read_file', toolCallId: 'c1', status: 'Success', result: 'hello' }] },
      { kind: 'widget_write', seq: 5, timestamp: at(5), widget: 'memory_notebook', write: { set: 'plan' }, by: 'bob' },
      { kind: 'turn_end', seq: 6, timestamp: at(6), reason: 'ask_user', question: 'Which file?' },
      { kind: 'compaction', seq: 7, timestamp: at(7), summary: 'They read a.txt.', fromSeq: 1, throughSeq: 6 } as unknown as HistoryEntry,
    ];
    expect(entries.map(entryAsText)).toEqual([
      '#1 · system instruction · 2026-01-01T00:00:01.000Z\nBe brief.',
      '#2 · input · 2026-01-01T00:00:02.000Z\n(from alice)\nRead the file.',
      '#3 · model · 2026-01-01T00:00:03.000Z\nReading it.\n→ read_file {"path":"a.txt"} (call c1)',
      '#4 · tool results · 2026-01-01T00:00:04.000Z\n← read_file [Success] (call c1)\nhello',
      '#5 · widget write · 2026-01-01T00:00:05.000Z\nmemory_notebook (by bob): {"set":"plan"}',
      '#6 · turn end · 2026-01-01T00:00:06.000Z\nThe model asked: Which file?',
      '#7 · compaction · 2026-01-01T00:00:07.000Z\nSummary (of seq 1–6):\nThey read a.txt.',
    ]);
  });

  test('recall text lists matches in the order given', () => {
    const out = recallText('x', [
      { seq: 9, kind: 'tool_results', timestamp: at(9), text: 'a' },
      { seq: 2, kind: 'compaction', timestamp: at(2), text: 'b' },
    ]);
    expect(out.split('\n').filter((l) => l.startsWith('#'))).toEqual([
      '#9 · tool results · 2026-01-01T00:00:09.000Z',
      '#2 · compaction · 2026-01-01T00:00:02.000Z',
    ]);
  });
});

describe('offering the tools', () => {
  const registry = new ToolRegistry(
    [],
    [
      { name: 'builtin', tools: workspaceTools },
      { name: 'archive', tools: archiveTools({ archive: new ArchiveStore({ store: new FileBlobStore('/nowhere') }) }) },
    ],
  );
  const names = (archived: boolean, allowance?: string[]) => registry.specsFor(allowance, { archived }).map((s) => s.name);

  test('only to agents with archived or compacted turns, and within their allowance', () => {
    expect(names(false)).not.toEqual(expect.arrayContaining(['recall']));
    expect(names(false)).not.toEqual(expect.arrayContaining(['expand']));
    expect(names(true).slice(-2)).toEqual(['recall', 'expand']);
    expect(names(true, ['read_file'])).toEqual(['read_file']);
    // The tools exist on the worker either way: a call runs wherever it was offered from.
    expect(registry.get('recall')).toBeDefined();
  });

  test('an agent has a past out of its context when its call carries its archive or its entries a compaction', () => {
    const call = { agentId: 'a', runId: 'r' } as CallModelInput;
    expect(offersArchiveTools(call, [input(1, 'hi')])).toBe(false);
    expect(offersArchiveTools({ ...call, archive: { throughSeq: 9, segments: [] } }, [input(1, 'hi')])).toBe(true);
    expect(offersArchiveTools(call, [{ kind: 'compaction', seq: 2, timestamp: at(2), summary: 's' } as unknown as HistoryEntry])).toBe(true);
  });
});
