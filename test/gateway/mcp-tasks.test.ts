/**
 * send_message as an MCP task (the SDK's tasks support, its own client): the task is the agent's turn,
 * so it outlives the gateway. A turn that waits for an approval reads `input_required`; the gateway
 * process is SIGKILLed and started again; the approval is given; `tasks/result` on the new gateway
 * returns the answer. tasks/cancel interrupts the turn. A call without a task keeps its capped wait.
 */
import { mkdtempSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import type { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { CreateTaskResultSchema } from '@modelcontextprotocol/sdk/experimental/tasks/types.js';
import { CallToolResultSchema } from '@modelcontextprotocol/sdk/types.js';
import { ScriptedModelProvider } from '../../activities/index';
import { MCP_CANCEL_BY } from '../../gateway/mcp/turn-task-store';
import { batchScript, echoScript } from '../fixtures/scripts';
import { deployTool } from '../fixtures/test-tools';
import { type ChildGateway, startChildGateway } from '../support/child-gateway';
import { callTool, connectMcp } from '../support/mcp-host';
import { connectTest, eventually, type TestContext, uniqueId, withWorker } from '../support/temporal';

let t: TestContext;
let gateway: ChildGateway | undefined;
let stopWorker: () => void;
let worker: Promise<void>;
const taskQueue = uniqueId('gw-mcp-tasks');
const workspaceRoot = mkdtempSync(path.join(tmpdir(), 'lc-ws-'));

beforeAll(async () => {
  t = await connectTest(taskQueue);
  const models = [new ScriptedModelProvider({ echo: echoScript, deploy: batchScript([{ name: 'deploy', args: { service: 'api', env: 'prod' } }]) })];
  worker = withWorker({ taskQueue, workspaceRoot, tools: [deployTool], models }, () => new Promise<void>((resolve) => (stopWorker = resolve)));
  gateway = await startChildGateway(taskQueue);
});
afterAll(async () => {
  await gateway?.kill();
  stopWorker?.();
  await worker;
  await t?.close();
});

/** send_message called as a task: the CreateTaskResult. */
async function sendAsTask(mcp: Client, args: Record<string, unknown>) {
  return mcp.request({ method: 'tools/call', params: { name: 'send_message', arguments: args, task: { ttl: 60_000 } } }, CreateTaskResultSchema);
}

test('send_message as a task: input_required at the approval, the gateway SIGKILLed and restarted, tasks/result gives the answer', async () => {
  const agentId = uniqueId('mcp-task');
  await t.agents.start(agentId, { model: 'scripted:deploy' });
  let mcp = await connectMcp(gateway!.url);
  const { tools } = await mcp.listTools();
  expect(tools.find((tool) => tool.name === 'send_message')?.execution).toMatchObject({ taskSupport: 'optional' });

  const { task } = await sendAsTask(mcp, { agent_id: agentId, text: 'deploy api to prod' });
  expect(task).toMatchObject({ status: expect.stringMatching(/^(working|input_required)$/), ttl: null });
  expect(task.taskId).toContain(agentId);
  const waiting = await eventually(
    async () => {
      const got = await mcp.experimental.tasks.getTask(task.taskId);
      return got.status === 'input_required' ? got : undefined;
    },
    30_000,
    'the task to need input (the approval)',
  );
  expect(waiting.statusMessage).toContain('tool call call_0_0: deploy');
  expect(waiting.createdAt).toBe(task.createdAt);
  await mcp.close();

  // The gateway dies with the task open; nothing of it was kept there.
  await gateway!.kill();
  gateway = await startChildGateway(taskQueue, gateway!.port);
  mcp = await connectMcp(gateway.url);
  await t.agents.approve(agentId, 'call_0_0', 'test');
  const result = await mcp.experimental.tasks.getTaskResult(task.taskId, CallToolResultSchema, { timeout: 60_000 });
  expect(result).toMatchObject({ structuredContent: { agent_id: agentId, input_seq: 1, status: 'answered', answer: 'saw 3 messages' } });
  expect(result.isError).toBeFalsy();
  expect(await mcp.experimental.tasks.getTask(task.taskId)).toMatchObject({ taskId: task.taskId, status: 'completed' });
  // One input, taken once.
  expect((await t.agents.history(agentId)).filter((e) => e.kind === 'model_input').map((e) => e.inputSeq)).toEqual([1]);
  await mcp.close();
}, 240_000);

test('tasks/cancel interrupts the turn: the task reads cancelled, its result says so; an unknown task is not found', async () => {
  const agentId = uniqueId('mcp-task-cancel');
  await t.agents.start(agentId, { model: 'scripted:deploy' });
  const mcp = await connectMcp(gateway!.url);
  try {
    const { task } = await sendAsTask(mcp, { agent_id: agentId, text: 'deploy api to prod' });
    await eventually(async () => (await mcp.experimental.tasks.getTask(task.taskId)).status === 'input_required', 30_000, 'the approval wait');
    const cancelled = await mcp.experimental.tasks.cancelTask(task.taskId);
    expect(cancelled).toMatchObject({ taskId: task.taskId, status: 'cancelled' });
    const result = await mcp.experimental.tasks.getTaskResult(task.taskId, CallToolResultSchema);
    expect(result).toMatchObject({ isError: true, structuredContent: { status: 'interrupted' } });
    expect(JSON.stringify(result.content)).toContain(`interrupted by ${MCP_CANCEL_BY}`);
    await expect(mcp.experimental.tasks.cancelTask(task.taskId)).rejects.toThrow(/terminal status: cancelled/);
    await expect(mcp.experimental.tasks.getTask(`lc-turn.9.0.${agentId}`)).rejects.toThrow(/not found/i);
    await expect(mcp.experimental.tasks.getTask('made-up')).rejects.toThrow(/not found/i);
    // Without a task, send_message answers as before (the capped wait).
    const plain = await callTool(mcp, 'send_message', { agent_id: agentId, text: 'again', wait: false });
    expect(plain.structured).toMatchObject({ input_seq: 2, status: 'accepted' });
  } finally {
    await mcp.close();
  }
}, 180_000);
