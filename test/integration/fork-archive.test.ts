/**
 * A fork of an old agent (one whose older turns are sealed in its archive) shares the source's sealed
 * segments — the same content-addressed blobs, named by the fork's own archive index — up to the last
 * whole segment before the fork point, and carries only the entries after it. What archived entries set
 * (the instruction, the notebook, usage) is the fork's as it was at the point.
 */
import { ScriptedModelProvider, type ScriptedRequest } from '../../activities/index';
import { type HistoryEntry, unwrap } from '../../agent/index';
import { eventually, uniqueId, withWorker } from '../support/temporal';
import { useTestConnection } from '../support/test-connection';

const { t, taskQueue } = useTestConnection('fork-archive');

/** Answers are ~4 KB, so a 16 KiB working set is passed every few turns (as in archive.test.ts). */
function longModel() {
  return new ScriptedModelProvider({
    long: (req: ScriptedRequest) => {
      const last = unwrap(req.messages[req.messages.length - 1]);
      if (last.kind === 'model_input' && last.sections[0].content === 'remember') {
        return { toolCalls: [{ name: 'memory_notebook_replace', args: { old_text: '', new_text: 'the key is under the mat' } }] };
      }
      const text = last.kind === 'model_input' ? last.sections[0].content : 'noted';
      return { text: `${text}: ${'lorem ipsum '.repeat(340)}` };
    },
  });
}

const answerAt = (history: HistoryEntry[], from: number, to: number) =>
  history.find((e) => e.kind === 'model_output' && e.toolCalls.length === 0 && e.seq >= from && e.seq < to)!;

test('a fork of an archived agent shares its sealed segments up to the point and carries only the rest', async () => {
  const model = longModel();
  const agentId = uniqueId('old');
  await withWorker({ taskQueue, models: [model] }, async () => {
    await t.agents.start(agentId, { model: 'scripted:long', workingSetBytes: 16 * 1024, systemInstruction: 'Be long.' });
    await t.agents.ask(agentId, 'remember');
    for (let i = 0; i < 24; i++) expect(await t.agents.ask(agentId, `msg-${i}`)).toMatchObject({ status: 'answered' });
    await eventually(async () => (await t.agents.state(agentId)).blockedOn === 'input', 10_000, 'rest');
    const source = await t.agents.snapshot(agentId);
    const refs = await t.agents.archive.allSegments(source.archive!);
    expect(refs.length).toBeGreaterThan(2);
    const history = await t.agents.history(agentId);
    const sourceState = await t.agents.state(agentId);

    // A point inside the second segment: the first is shared, the second's entries up to the point are carried.
    const point = answerAt(history, refs[1].fromSeq, refs[1].toSeq);
    const forkId = `${agentId}-fork`;
    const result = await t.agents.fork(agentId, { at: point.seq, as: forkId });
    expect(result).toMatchObject({ point: 'turn_end', sharedSegments: 1, carriedEntries: point.seq - refs[0].toSeq });
    const fork = await t.agents.snapshot(forkId);
    expect(fork.archive!.segments).toEqual([refs[0]]); // the same blob (key and hash): shared, not copied
    expect(fork.entries.map((e) => e.seq)).toEqual(history.filter((e) => e.seq > refs[0].toSeq && e.seq <= point.seq).map((e) => e.seq));
    expect(await t.agents.history(forkId)).toEqual(history.filter((e) => e.seq <= point.seq));
    const state = await t.agents.state(forkId);
    expect(state.notebook).toBe('the key is under the mat'); // set in an archived entry
    expect(state.systemInstruction).toBe('Be long.');
    expect(state.entryCount).toBe(point.seq);
    expect(state.usage.modelCalls).toBe(history.filter((e) => e.kind === 'model_output' && e.seq <= point.seq).length);

    // The fork goes on from there: its model call sees what archived entries set.
    expect(await t.agents.ask(forkId, 'after the fork')).toMatchObject({ status: 'answered' });
    const request = model.requests[model.requests.length - 1];
    expect(request.systemPrompt).toContain('Be long.');
    expect(JSON.stringify(request.messages)).toContain('the key is under the mat');
    expect(JSON.stringify(request.messages)).not.toContain(`msg-${23}`);

    // A point in the working set shares the whole archive as it is.
    const late = history.filter((e) => e.kind === 'model_output' && e.seq > source.archive!.throughSeq).at(-2)!;
    const lateResult = await t.agents.fork(agentId, { at: late.seq, as: `${forkId}-late` });
    expect(lateResult.sharedSegments).toBe(source.archive!.segments.length);
    expect((await t.agents.snapshot(`${forkId}-late`)).archive).toEqual(source.archive);
    expect(await t.agents.history(`${forkId}-late`)).toEqual(history.filter((e) => e.seq <= late.seq));

    // The source is untouched.
    expect(await t.agents.history(agentId)).toEqual(history);
    expect(await t.agents.state(agentId)).toEqual(sourceState);
  });
});
