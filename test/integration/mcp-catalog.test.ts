/**
 * The MCP tool catalog in the agent's state: a model call reports the MCP servers' tools (within the
 * agent's allowance) when they differ from what the agent holds, so the list enters history once per
 * change — not with every call — is carried across continue-as-new, is picked up after `configure`
 * narrows the agent's tools, and replays. With the reference server-everything over stdio.
 */
import { mkdtempSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { Worker } from '@temporalio/worker';
import { ScriptedModelProvider } from '../../activities/index';
import { livecontextDataConverter } from '../../common/codec/data-converter';
import { guardedForWorkers } from '../../common/codec/undecodable-guard';
import { callsInput, callsScript } from '../fixtures/calls-script';
import { maybeRecordHistory } from '../support/record-history';
import { everythingStdio } from '../support/mcp-servers';
import { uniqueId, withWorker, workflowBundle } from '../support/temporal';
import { useTestConnection } from '../support/test-connection';

const { t, taskQueue } = useTestConnection('mcp-catalog');

/** How many model-call results, over every run of the agent, carried a catalog. */
async function catalogsRecorded(agentId: string): Promise<{ count: number; runs: string[] }> {
  const runs: string[] = [];
  let count = 0;
  for await (const wf of t.client.workflow.list({ query: `WorkflowId = '${agentId}'` })) {
    runs.push(wf.runId);
    const events = (await t.client.workflow.getHandle(agentId, wf.runId).fetchHistory()).events ?? [];
    for (const e of events) {
      const payloads = e.activityTaskCompletedEventAttributes?.result?.payloads ?? [];
      for (const p of payloads) if (p.data && Buffer.from(p.data).toString().includes('"toolCatalog"')) count++;
    }
  }
  return { count, runs };
}

test('recorded once per change, carried across continue-as-new, narrowed by configure, replayed', async () => {
  const models = [new ScriptedModelProvider({ calls: callsScript })];
  const workspaceRoot = mkdtempSync(path.join(tmpdir(), 'lc-ws-'));
  await withWorker({ taskQueue, workspaceRoot, models, mcpServers: { every: everythingStdio(uniqueId('marker')) } }, async () => {
    const agentId = uniqueId('catalog');
    // A small history budget: the agent continues as new every turn or two.
    await t.agents.start(agentId, { model: 'scripted:calls', historyBudgetBytes: 4_000 });
    const echo = (message: string) => t.agents.ask(agentId, callsInput([{ name: 'every__echo', args: { message } }]));
    await expect(echo('one')).resolves.toMatchObject({ status: 'answered' });
    const first = await t.agents.state(agentId);
    expect(first.mcpTools).toEqual(expect.arrayContaining(['every__echo', 'every__get-sum', 'every__trigger-long-running-operation']));
    for (const m of ['two', 'three', 'four']) await expect(echo(m)).resolves.toMatchObject({ status: 'answered' });
    let recorded = await catalogsRecorded(agentId);
    expect(recorded.runs.length).toBeGreaterThan(1); // it continued as new, carrying the catalog...
    expect(recorded.count).toBe(1); // ...which entered history once
    expect((await t.agents.snapshot(agentId)).toolCatalog?.tools.map((s) => s.name)).toEqual(first.mcpTools);

    // Narrowed to one MCP tool (and the built-in ones): the next call records the new catalog.
    await t.agents.configure(agentId, { tools: ['every__echo', 'read_file'] });
    await expect(echo('five')).resolves.toMatchObject({ status: 'answered' });
    expect((await t.agents.state(agentId)).mcpTools).toEqual(['every__echo']);
    recorded = await catalogsRecorded(agentId);
    expect(recorded.count).toBe(2);

    for (const runId of recorded.runs) {
      const h = await t.client.workflow.getHandle(agentId, runId).fetchHistory();
      await Worker.runReplayHistory({ workflowBundle: workflowBundle(), dataConverter: guardedForWorkers(livecontextDataConverter()) }, h, agentId);
    }
    await maybeRecordHistory(t.client.workflow.getHandle(agentId, recorded.runs[recorded.runs.length - 1]), 'mcp-catalog_v1.json');
  });
}, 180_000);

test('an agent on a worker without MCP servers records no catalog', async () => {
  await withWorker({ taskQueue, models: [new ScriptedModelProvider({ calls: callsScript })] }, async () => {
    const agentId = uniqueId('no-catalog');
    await t.agents.start(agentId, { model: 'scripted:calls' });
    await expect(t.agents.ask(agentId, callsInput([{ name: 'list_files', args: {} }]))).resolves.toMatchObject({ status: 'answered' });
    expect((await t.agents.state(agentId)).mcpTools).toBeUndefined();
    expect((await t.agents.snapshot(agentId)).toolCatalog).toBeUndefined();
    expect((await catalogsRecorded(agentId)).count).toBe(0);
  });
});
