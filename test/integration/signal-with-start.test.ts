/**
 * Another service starts-or-feeds an agent in one call with signal-with-start, using only the names
 * and JSON payloads docs/library.md documents (no livecontext code on its side).
 */
import { Client, Connection } from '@temporalio/client';
import { eventually, testAddress, uniqueId, withWorker } from '../support/temporal';
import { useTestConnection } from '../support/test-connection';

const { t, taskQueue } = useTestConnection('sws');

test('signal-with-start starts the agent once and feeds it; later calls just feed it', async () => {
  const agentId = uniqueId('fed');
  const connection = await Connection.connect({ address: testAddress() });
  const other = new Client({ connection }); // "another Temporal client": plain names, plain JSON
  const feed = (text: string) =>
    other.workflow.signalWithStart('agentWorkflow', {
      workflowId: agentId,
      taskQueue,
      args: [{ config: { model: 'demo:offline' } }],
      signal: 'input',
      signalArgs: [{ text, sender: 'billing-service' }],
    });
  try {
    await withWorker({ taskQueue, workspaceRoot: `/tmp/lc-sws-${agentId}` }, async () => {
      const first = await feed('invoice 1 paid');
      const second = await feed('invoice 2 paid');
      expect(second.signaledRunId).toBe(first.signaledRunId); // the same run: started once, fed twice
      await eventually(
        async () => (await t.agents.state(agentId)).consumedInputSeq === 2 && (await t.agents.state(agentId)).blockedOn === 'input',
        30_000,
        'both inputs answered',
      );
      const inputs = (await t.agents.history(agentId)).filter((e) => e.kind === 'model_input');
      expect(inputs.map((e) => e.kind === 'model_input' && [e.sender, e.sections[0].content])).toEqual([
        ['billing-service', 'invoice 1 paid'],
        ['billing-service', 'invoice 2 paid'],
      ]);
    });
  } finally {
    await connection.close();
  }
});
