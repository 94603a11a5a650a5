/**
 * `recall` on a real dev server: an agent imported with more than 10,000 turns (a version-1 snapshot,
 * which import seals into archive segments in the blob store), whose first turn stated a fact. Asked
 * about it, the scripted model — offered `recall` and `expand` because the agent has an archive, and not
 * shown the fact — calls `recall`, which finds it in the oldest segment, reads that turn back verbatim
 * with `expand`, and answers with it.
 */
import { mkdtempSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { ScriptedModelProvider, type ScriptedRequest, type ScriptStep } from '../../activities/index';
import { type AgentSnapshot, type HistoryEntry, type ToolResultsEntry, unwrap } from '../../agent/index';
import { archiveQuery } from '../../workflows/messages';
import { maybeRecordHistory } from '../support/record-history';
import { uniqueId, withWorker } from '../support/temporal';
import { useTestConnection } from '../support/test-connection';

const { t, taskQueue } = useTestConnection('recall');

const TURNS = 10_050;
const FACT = 'Please remember this: the launch code for project Heron is 7-ALPHA-42.';
const invocation = { providerId: 'scripted', specification: 'scripted', model: 'recall' };

/** seq 1: the instruction; then turn k (1-based) is input 2k, answer 2k + 1. The first turn states the fact. */
function history(): HistoryEntry[] {
  const start = Date.UTC(2025, 0, 1);
  const at = (seq: number) => new Date(start + seq * 60_000).toISOString();
  const entries: HistoryEntry[] = [{ kind: 'system_instruction', seq: 1, timestamp: at(1), instruction: 'You are a helpful agent.' }];
  for (let k = 1; k <= TURNS; k++) {
    const question = k === 1 ? FACT : `Status ping ${k}: anything new on the build queue?`;
    const reply = k === 1 ? 'Noted.' : `Nothing new on the build queue (${k}).`;
    entries.push({ kind: 'model_input', seq: 2 * k, timestamp: at(2 * k), sections: [{ title: 'Input', content: question }], inputSeq: k });
    entries.push({ kind: 'model_output', seq: 2 * k + 1, timestamp: at(2 * k + 1), contents: [reply], toolCalls: [], invocation });
  }
  return entries;
}

/** Asked about the code: recall it, read the turn it is in with expand, then answer with what that shows. */
function recallScript(request: ScriptedRequest): ScriptStep {
  const last = unwrap(request.messages[request.messages.length - 1]);
  if (last.kind === 'model_input') return { text: 'Let me look that up.', toolCalls: [{ name: 'recall', args: { query: 'Heron launch code' } }] };
  if (last.kind !== 'tool_results') throw new Error(`unexpected last message ${last.kind}`);
  const [result] = last.results;
  if (result.toolName === 'recall') {
    const seq = /^#(\d+) · input/m.exec(result.result);
    if (!seq) return { text: 'I could not find it.' };
    return { toolCalls: [{ name: 'expand', args: { fromSeq: Number(seq[1]), toSeq: Number(seq[1]) + 1 } }] };
  }
  const found = /launch code for project Heron is ([\w-]+)\.\n\n#\d+ · model · \S+\nNoted\./.exec(result.result);
  return { text: found ? `The launch code for project Heron is ${found[1]}.` : 'I could not read it back.' };
}

test('recall finds a fact stated 10,000 turns earlier, in the oldest archive segment, and the next answer uses it', async () => {
  const entries = history();
  const scripted = new ScriptedModelProvider({ recall: recallScript });
  const agentId = uniqueId('recall');
  const workspaceRoot = mkdtempSync(path.join(tmpdir(), 'lc-ws-'));
  await withWorker({ taskQueue, workspaceRoot, models: [scripted] }, async () => {
    await t.agents.start(agentId, { model: 'scripted:recall', systemInstruction: 'You are a helpful agent.' });
    const template = await t.agents.snapshot(agentId);
    await t.agents.stop(agentId);
    await t.agents.handle(agentId).result();

    // Import seals the long history into segments before the agent starts.
    const imported = `${agentId}-imported`;
    // A small working set keeps the start input under the offload threshold, so the recording replays anywhere.
    const config = { ...template.config, workingSetBytes: 32 * 1024 };
    const snapshot: AgentSnapshot = { ...template, config, entries, nextSeq: entries.length + 1, inbox: [], nextInputSeq: TURNS + 1, consumedInputSeq: TURNS };
    await t.agents.restore(imported, snapshot);
    const index = (await t.agents.handle(imported).query(archiveQuery))!;
    expect(index.throughSeq).toBeGreaterThan(10_000); // the fact (seq 2) and most turns after it
    const segments = await t.agents.archive.allSegments(index);
    expect(segments.length).toBeGreaterThan(1);
    expect(segments[0]).toMatchObject({ fromSeq: 1 });

    const outcome = await t.agents.ask(imported, 'What is the launch code for project Heron?');
    expect(outcome).toMatchObject({ status: 'answered' });
    if (outcome.status === 'answered') expect(outcome.answer.contents).toEqual(['The launch code for project Heron is 7-ALPHA-42.']);

    // The model was offered the tools and not shown the fact: its first request holds the newest turns only.
    const [first] = scripted.requests;
    expect(first.toolSpecs.map((s) => s.name)).toEqual(expect.arrayContaining(['recall', 'expand']));
    expect(JSON.stringify(first.messages)).toContain('launch code for project Heron?');
    expect(JSON.stringify(first.messages)).not.toContain('7-ALPHA-42');

    // What recall returned: the first turn's input, by its seq, from the oldest segment; expand read that turn verbatim.
    const results = (await t.agents.history(imported, entries.length)).filter((e): e is ToolResultsEntry => e.kind === 'tool_results');
    expect(results.map((e) => e.results.map((r) => [r.toolName, r.status]))).toEqual([[['recall', 'Success']], [['expand', 'Success']]]);
    expect(results[0].results[0].result).toContain(`#2 · input · ${entries[1].timestamp}\n${FACT}`);
    expect(results[1].results[0].result).toBe(
      `Entries 2–3 of the requested 2–3, verbatim:\n\n#2 · input · ${entries[1].timestamp}\n${FACT}\n\n#3 · model · ${entries[2].timestamp}\nNoted.`,
    );
    await maybeRecordHistory(t.agents.handle(imported), 'recall_v1.json');
    await t.agents.stop(imported);
  });
});
