/**
 * `recall` on a real dev server: an agent imported with more than 10,000 turns, all but the last two
 * sealed into archive segments in the blob store, whose first turn stated a fact. Asked about it, the
 * scripted model calls `recall`, finds the fact in the oldest segment and answers with it; `expand`
 * reads the turn back verbatim.
 *
 * The archive is written here with ArchiveStore, as import writes it (the lead's import does the same
 * from a version-1 snapshot), and the agent restored from the version-2 snapshot that refers to it.
 */
import { mkdtempSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { ScriptedModelProvider, type ScriptedRequest, type ScriptStep } from '../../activities/index';
import { type AgentSnapshot, type HistoryEntry, type ToolResultsEntry, unwrap } from '../../agent/index';
import { type ArchiveIndex, archiveAfterFold, archiveAfterSeal, emptyArchive, foldable } from '../../agent/archive';
import { ArchiveStore } from '../../common/archive/index';
import { FileBlobStore } from '../../common/codec/blob-store';
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

/** Seals all but the last `keepTurns` turns into segments of `perSegment` entries, folding references as the agent does. */
async function sealed(archive: ArchiveStore, entries: HistoryEntry[], keepTurns: number, perSegment: number) {
  const cut = entries.length - 2 * keepTurns;
  let index: ArchiveIndex = emptyArchive();
  for (let i = 0; i < cut; i += perSegment) {
    const leaving = entries.slice(i, Math.min(i + perSegment, cut));
    const ref = await archive.writeSegment({ before: { systemInstruction: index.systemInstruction, widgets: index.widgets }, entries: leaving });
    index = archiveAfterSeal(index, leaving, ref, 0);
    const fold = foldable(index);
    if (fold.length) index = archiveAfterFold(index, fold, await archive.writeManifest(fold, index.manifest?.key));
  }
  return { index, working: entries.slice(cut) };
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
  const archive = new ArchiveStore({ store: new FileBlobStore(mkdtempSync(path.join(tmpdir(), 'lc-recall-blobs-'))) });
  const entries = history();
  const { index, working } = await sealed(archive, entries, 2, 500);
  expect(index.throughSeq).toBe(entries.length - 4);
  expect(index.manifest).toBeDefined(); // some references are only in the manifest chain

  const scripted = new ScriptedModelProvider({ recall: recallScript });
  const agentId = uniqueId('recall');
  const workspaceRoot = mkdtempSync(path.join(tmpdir(), 'lc-ws-'));
  await withWorker({ taskQueue, workspaceRoot, models: [scripted], archive }, async () => {
    await t.agents.start(agentId, { model: 'scripted:recall', systemInstruction: 'You are a helpful agent.' });
    const template = await t.agents.snapshot(agentId);
    await t.agents.stop(agentId);
    await t.agents.handle(agentId).result();

    const imported = `${agentId}-imported`;
    const snapshot: AgentSnapshot = {
      ...template,
      version: 2,
      entries: working,
      archive: index,
      nextSeq: entries.length + 1,
      inbox: [],
      nextInputSeq: TURNS + 1,
      consumedInputSeq: TURNS,
    };
    await t.agents.restore(imported, snapshot);
    const outcome = await t.agents.ask(imported, 'What is the launch code for project Heron?');
    expect(outcome).toMatchObject({ status: 'answered' });
    if (outcome.status === 'answered') expect(outcome.answer.contents).toEqual(['The launch code for project Heron is 7-ALPHA-42.']);

    // What recall returned: the first turn's input, by its seq, from the oldest segment; expand read that turn verbatim.
    const results = (await t.agents.history(imported, entries.length)).filter((e): e is ToolResultsEntry => e.kind === 'tool_results');
    expect(results.map((e) => e.results.map((r) => [r.toolName, r.status]))).toEqual([[['recall', 'Success']], [['expand', 'Success']]]);
    expect(results[0].results[0].result).toContain(`#2 · input · ${entries[1].timestamp}\n${FACT}`);
    expect(results[1].results[0].result).toBe(
      `Entries 2–3 of the requested 2–3, verbatim:\n\n#2 · input · ${entries[1].timestamp}\n${FACT}\n\n#3 · model · ${entries[2].timestamp}\nNoted.`,
    );
    // The model was not shown the fact otherwise: its first request held only the working set.
    const first = scripted.requests.find((r) =>
      r.messages.some((m) => unwrap(m).kind === 'model_input' && JSON.stringify(m).includes('launch code for project Heron?')),
    )!;
    expect(JSON.stringify(first.messages)).not.toContain('7-ALPHA-42');

    await t.agents.stop(imported);
  });
});
