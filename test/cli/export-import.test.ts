/**
 * Export mid tool-loop (a result pending, a call waiting for approval, input queued) → import into a
 * second namespace → the imported agent finishes the turn with the same tool calls, then answers the
 * queued input. The snapshot holds no secrets.
 */
import { mkdtempSync, readFileSync, readdirSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { ScriptedModelProvider } from '../../activities/index';
import type { ToolResultsEntry } from '../../agent/index';
import { batchScript, echoStep } from '../fixtures/scripts';
import { deployTool } from '../fixtures/test-tools';
import { cli } from '../support/cli';
import { SECOND_NAMESPACE } from '../support/global-setup';
import { connectTest, eventually, type TestContext, uniqueId, withWorker, waitingForApproval } from '../support/temporal';

let first: TestContext;
let second: TestContext;
const taskQueue = uniqueId('export');
beforeAll(async () => {
  first = await connectTest(taskQueue);
  second = await connectTest(taskQueue, SECOND_NAMESPACE);
});
afterAll(async () => {
  await first?.close();
  await second?.close();
});

const calls = [
  { name: 'deploy', args: { service: 'api', env: 'staging' } },
  { name: 'deploy', args: { service: 'api', env: 'prod' } },
  { name: 'deploy', args: { service: 'web', env: 'staging' } },
];
const script = batchScript(calls);
const models = () => [new ScriptedModelProvider({ deploys: (req) => (req.step <= 1 ? script(req) : echoStep(req)) })];

test('a snapshot taken mid tool-loop continues in another namespace with the same next steps', async () => {
  const id = uniqueId('movable');
  const file = path.join(mkdtempSync(path.join(tmpdir(), 'lc-export-')), 'agent.json');
  const ws1 = mkdtempSync(path.join(tmpdir(), 'lc-ws1-'));
  const ws2 = mkdtempSync(path.join(tmpdir(), 'lc-ws2-'));

  await withWorker({ taskQueue, workspaceRoot: ws1, tools: [deployTool], models: models() }, async () => {
    await first.agents.start(id, { model: 'scripted:deploys', systemInstruction: 'Deploy carefully.' });
    await first.agents.send(id, 'deploy all');
    await eventually(async () => (await first.agents.state(id)).blockedOn === 'approval', 30_000, 'the prod deploy to wait');
    await first.agents.signal(id, 'and then report');
    const exported = await cli(['export', id, '--out', file], { env: { LIVECONTEXT_TASK_QUEUE: taskQueue, OPENAI_API_KEY: 'sk-secret-should-not-appear' } });
    expect(exported).toMatchObject({ code: 0, stdout: expect.stringMatching(/^Exported agent/) });
    // What an export does not carry is said (issue 26): the files the agent's tools wrote.
    expect(exported.stderr).toContain(`Workspace files are not in an export: copy .livecontext/workspaces/${id}/`);
  });

  const snapshot = JSON.parse(readFileSync(file, 'utf8'));
  expect(snapshot).toMatchObject({ format: 'livecontext.agent-snapshot', version: 1, sourceAgentId: id });
  expect(snapshot.pendingToolResults.map((r: { toolCallId: string }) => r.toolCallId)).toEqual(['call_0_0']);
  expect(snapshot.approvals.call_0_1).toMatchObject({ status: 'pending' });
  expect(snapshot.inbox.map((i: { inputSeq: number }) => i.inputSeq)).toEqual([2]);
  expect(readFileSync(file, 'utf8')).not.toMatch(/sk-secret|api[_-]?key/i);

  const newId = `${id}-moved`;
  const imported = await cli(['import', file, '--id', newId], { env: { LIVECONTEXT_TASK_QUEUE: taskQueue, TEMPORAL_NAMESPACE: SECOND_NAMESPACE } });
  expect(imported).toMatchObject({ code: 0, stdout: `Imported as agent "${newId}".\n` });
  expect(imported.stderr).toContain(
    `copy .livecontext/workspaces/${id}/ (beside the worker that ran "${id}", or under its --workspace) to .livecontext/workspaces/${newId}/ beside the worker that runs "${newId}" by hand.`,
  );

  await withWorker({ taskQueue, namespace: SECOND_NAMESPACE, workspaceRoot: ws2, tools: [deployTool], models: models() }, async () => {
    const waiting = await waitingForApproval(second.agents, newId, 30_000, 'the imported agent to wait for the same approval');
    expect(waiting.awaitingApproval.map((a) => a.toolCallId)).toEqual(['call_0_1']);
    expect(waiting.systemInstruction).toBe('Deploy carefully.');
    expect((await cli(['approve', newId, 'call_0_1'], { env: { LIVECONTEXT_TASK_QUEUE: taskQueue, TEMPORAL_NAMESPACE: SECOND_NAMESPACE } })).code).toBe(0);
    await expect(second.agents.waitForAnswer(newId, 2)).resolves.toMatchObject({ status: 'answered', answer: { contents: ['echo: and then report'] } });

    const results = (await second.agents.history(newId)).find((e) => e.kind === 'tool_results') as ToolResultsEntry;
    expect(results.results.map((r) => [r.toolCallId, r.result])).toEqual([
      ['call_0_0', 'deployed api to staging'], // ran before the export
      ['call_0_1', 'deployed api to prod'],
      ['call_0_2', 'deployed web to staging'],
    ]);
  });
  // The first namespace ran only the first call; the second ran the rest, exactly once each.
  expect(readFileSync(path.join(ws1, id, 'deploys.log'), 'utf8')).toBe('api@staging\n');
  expect(readFileSync(path.join(ws2, newId, 'deploys.log'), 'utf8')).toBe('api@prod\nweb@staging\n');
  expect(readdirSync(ws2)).toEqual([newId]);
});
