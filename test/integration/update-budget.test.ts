/**
 * Temporal refuses updates past about 2,000 per workflow run. An agent that takes many (every send and
 * every wait is one) continues as new before that, and keeps taking them.
 */
import { ScriptedModelProvider } from '../../activities/index';
import { echoStep } from '../fixtures/scripts';
import { uniqueId, withWorker } from '../support/temporal';
import { useTestConnection } from '../support/test-connection';

const { t, taskQueue } = useTestConnection('updates');

test('after 1,500 updates in a run the agent continues as new; updates keep being taken', async () => {
  const agentId = uniqueId('many-updates');
  await withWorker({ taskQueue, models: [new ScriptedModelProvider({ echo: echoStep })] }, async () => {
    await t.agents.start(agentId, { model: 'scripted:echo' });
    const firstRun = (await t.agents.handle(agentId).describe()).runId;
    await expect(t.agents.ask(agentId, 'first')).resolves.toMatchObject({ status: 'answered' });
    // 1,600 more updates: waits for an input answered already (each completes at once).
    let next = 0;
    await Promise.all(
      Array.from({ length: 8 }, async () => {
        while (next++ < 1600) await t.agents.waitForAnswer(agentId, 1);
      }),
    );
    await expect(t.agents.ask(agentId, 'still taking updates?')).resolves.toMatchObject({
      status: 'answered',
      answer: { contents: ['echo: still taking updates?'] },
    });
    const runs: string[] = [];
    for await (const wf of t.client.workflow.list({ query: `WorkflowId = '${agentId}'` })) runs.push(wf.runId);
    expect(runs.length).toBeGreaterThan(1);
    expect((await t.agents.handle(agentId).describe()).runId).not.toBe(firstRun);
    const history = await t.agents.history(agentId);
    expect(history.filter((e) => e.kind === 'model_input').map((e) => e.kind === 'model_input' && e.inputSeq)).toEqual([1, 2]);
  });
}, 180_000);
