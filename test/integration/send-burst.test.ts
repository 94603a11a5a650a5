/**
 * A burst of 1,000 concurrent sends to one agent: Temporal admits at most 10 unfinished updates per
 * workflow and aborts some under load; the client waits its turn and sends again only what was never
 * accepted, so every input is accepted exactly once and answered once, in the order it was accepted.
 */
import { ScriptedModelProvider } from '../../activities/index';
import { AgentClient } from '../../client/agent-client';
import { echoScript } from '../fixtures/scripts';
import { eventually, uniqueId, withWorker } from '../support/temporal';
import { useTestConnection } from '../support/test-connection';

const { t, taskQueue } = useTestConnection('burst');

const BURST = 1_000;

async function burst(agents: AgentClient, id: string) {
  const texts = Array.from({ length: BURST }, (_, i) => `message ${i}`);
  const results = await Promise.allSettled(texts.map((text) => agents.send(id, text)));
  const failures = results.flatMap((r) => (r.status === 'rejected' ? [String((r.reason as Error).cause ?? r.reason)] : []));
  expect(failures.slice(0, 3)).toEqual([]);
  const seqs = results.map((r) => (r as PromiseFulfilledResult<{ inputSeq: number }>).value.inputSeq);
  expect([...seqs].sort((a, b) => a - b)).toEqual(Array.from({ length: BURST }, (_, i) => i + 1));
  return new Map(seqs.map((seq, i) => [seq, texts[i]]));
}

test('1,000 concurrent sends: 1,000 distinct inputSeqs, each input answered once, in order', async () => {
  const id = uniqueId('burst-agent');
  await withWorker({ taskQueue, models: [new ScriptedModelProvider({ echo: echoScript })] }, async () => {
    await t.agents.start(id, { model: 'scripted:echo' });
    const textOf = await burst(t.agents, id);

    await eventually(
      async () => {
        const s = await t.agents.state(id);
        return s.runState === 'WaitingInput' && s.inboxLength === 0;
      },
      540_000,
      'every input to be answered',
    );
    const history = await t.agents.history(id);
    const inputs = history.filter((e) => e.kind === 'model_input');
    expect(inputs.map((e) => e.inputSeq)).toEqual(Array.from({ length: BURST }, (_, i) => i + 1));
    // Each input is followed by exactly one answer, which echoes that input's own text.
    const answers = history.filter((e) => e.kind === 'model_output');
    expect(answers).toHaveLength(BURST);
    for (let i = 0; i < history.length; i += 2) {
      const [input, answer] = [history[i], history[i + 1]];
      if (input.kind !== 'model_input' || answer?.kind !== 'model_output') throw new Error(`entry #${input.seq} is not an input followed by its answer`);
      expect(input.sections[0].content).toBe(textOf.get(input.inputSeq!));
      expect(answer.contents).toEqual([`echo: ${textOf.get(input.inputSeq!)}`]);
    }
  });
}, 600_000);

test("without the client's own limit, 200 concurrent sends are refused and sent again until all are accepted once", async () => {
  const id = uniqueId('burst-unlimited');
  const unlimited = new AgentClient(t.client, taskQueue, { maxUpdatesInFlight: 1_000 });
  await withWorker({ taskQueue, models: [new ScriptedModelProvider({ echo: echoScript })] }, async () => {
    await t.agents.start(id, { model: 'scripted:echo' });
    const texts = Array.from({ length: 200 }, (_, i) => `m${i}`);
    const seqs = await Promise.all(texts.map((text) => unlimited.send(id, text).then((r) => r.inputSeq)));
    expect([...seqs].sort((a, b) => a - b)).toEqual(Array.from({ length: 200 }, (_, i) => i + 1));
    await eventually(
      async () => (await t.agents.state(id)).inboxLength === 0 && (await t.agents.state(id)).runState === 'WaitingInput',
      300_000,
      'the answers',
    );
    const inputs = (await t.agents.history(id)).filter((e) => e.kind === 'model_input');
    expect(inputs.map((e) => (e.kind === 'model_input' ? e.sections[0].content : '')).sort()).toEqual([...texts].sort());
  });
}, 600_000);
