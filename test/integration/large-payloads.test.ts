/**
 * No payload comes near Temporal's limits: a 3 MB model answer and a 250 KB input are offloaded to the
 * blob store by the payload codec, history events stay small, and every path (answer, history query,
 * update result) still works. No workflow task retries because of size.
 */
import { ScriptedModelProvider } from '../../activities';
import { connectTest, type TestContext, uniqueId, withWorker } from '../support/temporal';

let t: TestContext;
const taskQueue = uniqueId('large');
beforeAll(async () => (t = await connectTest(taskQueue)));
afterAll(async () => t?.close());

test('3 MB of model output and a 250 KB input go through; history holds references', async () => {
  const huge = 'y'.repeat(3 * 1024 * 1024);
  const scripted = new ScriptedModelProvider({ huge: () => ({ text: huge }) });
  const agentId = uniqueId('big');
  await withWorker({ taskQueue, models: [scripted] }, async () => {
    await t.agents.start(agentId, { model: 'scripted:huge' });
    const outcome = await t.agents.ask(agentId, `big input ${'z'.repeat(250 * 1024)}`);
    expect(outcome).toMatchObject({ status: 'answered' });
    if (outcome.status === 'answered') expect(outcome.answer.contents[0]).toHaveLength(huge.length);
    const history = await t.agents.history(agentId);
    expect(history.map((e) => e.kind)).toEqual(['model_input', 'model_output']);

    const events = (await t.agents.handle(agentId).fetchHistory()).events ?? [];
    const biggest = Math.max(...events.map((e) => JSON.stringify(e).length));
    expect(biggest).toBeLessThan(64 * 1024); // every event small: large payloads are references
    expect(events.some((e) => e.workflowTaskFailedEventAttributes)).toBe(false);
  });
});
