/**
 * Human in the loop and parallel tools: a call that needs approval waits (visible in the state query)
 * until a person approves or denies it; each call of a batch is decided on its own; denial is a Skipped
 * result with the reason. With parallelTools, the calls of one output run at the same time and their
 * results are still recorded in call order.
 */
import { mkdtempSync, readFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { ScriptedModelProvider } from '../../activities/index';
import type { ToolResultsEntry } from '../../agent/index';
import { decideToolCallSignal } from '../../workflows/messages';
import { batchScript } from '../fixtures/scripts';
import { maybeRecordHistory } from '../support/record-history';
import { deployTool, pauseTool } from '../fixtures/test-tools';
import { eventually, uniqueId, withWorker, waitingForApproval } from '../support/temporal';
import { useTestConnection } from '../support/test-connection';

const { t, taskQueue } = useTestConnection('approval');

test('approve one call and deny another in the same batch', async () => {
  const workspaceRoot = mkdtempSync(path.join(tmpdir(), 'lc-ws-'));
  const scripted = new ScriptedModelProvider({
    deploys: batchScript([
      { name: 'deploy', args: { service: 'api', env: 'staging' } },
      { name: 'deploy', args: { service: 'api', env: 'prod' } },
      { name: 'deploy', args: { service: 'web', env: 'prod' } },
    ]),
  });
  const agentId = uniqueId('deployer');
  await withWorker({ taskQueue, workspaceRoot, tools: [deployTool], models: [scripted] }, async () => {
    await t.agents.start(agentId, { model: 'scripted:deploys' });
    const { inputSeq } = await t.agents.send(agentId, 'deploy everything');

    // staging needs no approval; the first prod deploy waits and is visible.
    const waiting = await waitingForApproval(t.agents, agentId, 30_000, 'the first approval request');
    expect(waiting.awaitingApproval).toEqual([
      expect.objectContaining({
        toolCallId: 'call_0_1',
        toolName: 'deploy',
        reason: 'deploys to prod need approval',
        arguments: '{"service":"api","env":"prod"}',
      }),
    ]);
    expect(waiting.runState).toBe('WaitingToolResults');
    // A decision for a call that is not pending is refused.
    await expect(t.agents.decide(agentId, { toolCallId: 'nope', approved: true })).rejects.toThrow();

    await t.agents.decide(agentId, { toolCallId: 'call_0_1', approved: true, by: 'alice' });
    await eventually(async () => (await t.agents.state(agentId)).awaitingApproval[0]?.toolCallId === 'call_0_2', 30_000, 'the second approval request');
    // The other decision arrives by signal, as another service would send it.
    await t.agents.handle(agentId).signal(decideToolCallSignal, { toolCallId: 'call_0_2', approved: false, reason: 'web is frozen this week', by: 'bob' });

    await expect(t.agents.waitForAnswer(agentId, inputSeq)).resolves.toMatchObject({ status: 'answered' });
    const results = (await t.agents.history(agentId)).find((e) => e.kind === 'tool_results') as ToolResultsEntry;
    expect(results.results.map((r) => [r.toolCallId, r.status])).toEqual([
      ['call_0_0', 'Success'],
      ['call_0_1', 'Success'],
      ['call_0_2', 'Skipped'],
    ]);
    expect(results.results[2].result).toBe('The call was denied by bob: web is frozen this week. Do not retry it unchanged.');
    expect(readFileSync(path.join(workspaceRoot, agentId, 'deploys.log'), 'utf8')).toBe('api@staging\napi@prod\n');
    expect((await t.agents.state(agentId)).awaitingApproval).toEqual([]);
    await maybeRecordHistory(t.agents.handle(agentId), 'approval_v1.json');
  });
});

test('an agent policy can require approval for any tool; parallel calls wait and run independently', async () => {
  const scripted = new ScriptedModelProvider({
    par: batchScript([
      { name: 'pause', args: { label: 'a' } },
      { name: 'deploy', args: { service: 'db', env: 'staging' } },
      { name: 'pause', args: { label: 'b' } },
    ]),
  });
  const agentId = uniqueId('policy');
  await withWorker({ taskQueue, workspaceRoot: mkdtempSync(path.join(tmpdir(), 'lc-ws-')), tools: [deployTool, pauseTool], models: [scripted] }, async () => {
    await t.agents.start(agentId, { model: 'scripted:par', parallelTools: true, approval: { deploy: 'always' } });
    const { inputSeq } = await t.agents.send(agentId, 'go');
    await eventually(
      async () => {
        const s = await t.agents.state(agentId);
        return s.awaitingApproval.length === 1 && s.pendingToolResultCount === 2 && s.blockedOn === 'approval';
      },
      30_000,
      'both pauses to finish while the deploy waits',
    );
    await t.agents.decide(agentId, { toolCallId: 'call_0_1', approved: true });
    await expect(t.agents.waitForAnswer(agentId, inputSeq)).resolves.toMatchObject({ status: 'answered' });
    const results = (await t.agents.history(agentId)).find((e) => e.kind === 'tool_results') as ToolResultsEntry;
    expect(results.results.map((r) => r.status)).toEqual(['Success', 'Success', 'Success']);
  });
});

test('parallel tools overlap in time; results are recorded in call order', async () => {
  const scripted = new ScriptedModelProvider({
    two: batchScript([
      { name: 'pause', args: { label: 'first' } },
      { name: 'pause', args: { label: 'second' } },
    ]),
  });
  const agentId = uniqueId('parallel');
  await withWorker({ taskQueue, workspaceRoot: mkdtempSync(path.join(tmpdir(), 'lc-ws-')), tools: [pauseTool], models: [scripted] }, async () => {
    await t.agents.start(agentId, { model: 'scripted:two', parallelTools: true });
    await expect(t.agents.ask(agentId, 'go')).resolves.toMatchObject({ status: 'answered' });
    const results = (await t.agents.history(agentId)).find((e) => e.kind === 'tool_results') as ToolResultsEntry;
    expect(results.results.map((r) => r.result)).toEqual(['paused first', 'paused second']);
    const [a, b] = results.results.map((r) => r.metadata as { started_at: number; ended_at: number });
    expect(b.started_at).toBeLessThan(a.ended_at); // the second started before the first ended
    expect(a.started_at).toBeLessThan(b.ended_at);
  });
});
