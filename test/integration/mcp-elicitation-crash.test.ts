/**
 * A worker SIGKILLed while an MCP server's question (elicitation) is open: the question leaves the
 * waits while the call's outcome is unknown (nobody is asked what no call listens for); resolved with
 * `retry`, the call runs again, the server asks again and the person sees the same wait (same id), not a
 * second question; the answer reaches the server.
 */
import { mkdtempSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import type { AgentStatus, ToolResultsEntry } from '../../agent/index';
import { callsInput } from '../fixtures/calls-script';
import { everythingStdio } from '../support/mcp-servers';
import { type ChildWorker, startChildWorker } from '../support/child-worker';
import { connectTest, eventually, type TestContext, uniqueId } from '../support/temporal';

const taskQueue = uniqueId('mcp-elicit-crash');
const workspaceRoot = mkdtempSync(path.join(tmpdir(), 'lc-ws-'));
let t: TestContext;
let worker: ChildWorker | undefined;

function startWorker(): Promise<ChildWorker> {
  const config = { mcpServers: { every: everythingStdio(uniqueId('marker')) } };
  return startChildWorker({ fixture: 'mcp-worker.ts', taskQueue, workspaceRoot, extraEnv: { MCP_CONFIG: JSON.stringify(config) } });
}

beforeAll(async () => (t = await connectTest(taskQueue)));
afterAll(async () => {
  await worker?.kill('SIGKILL');
  await t?.close();
});

const until = (agentId: string, what: string, pick: (s: AgentStatus) => boolean) =>
  eventually(
    async () => {
      const s = await t.agents.state(agentId);
      return pick(s) ? s : undefined;
    },
    90_000,
    what,
  );

test('SIGKILL while the question is open: one wait, answered once, after the call is run again', async () => {
  worker = await startWorker();
  const agentId = uniqueId('mcp-elicit-crash');
  await t.agents.start(agentId, { model: 'scripted:calls' });
  const { inputSeq } = await t.agents.send(agentId, callsInput([{ name: 'every__trigger-elicitation-request', args: {} }]));
  const asked = await until(agentId, 'the question', (s) => !!s.waits?.some((w) => w.kind === 'elicitation'));
  const question = asked.waits!.find((w) => w.kind === 'elicitation')!;

  await worker.kill('SIGKILL');
  worker = await startWorker();
  const unknown = await until(agentId, 'the unknown outcome', (s) => !!s.waits?.some((w) => w.kind === 'unknown_outcome'));
  expect(unknown.waits!.map((w) => w.kind)).toEqual(['unknown_outcome']); // the question left with its call
  const refused = await t.agents
    .answerWait(agentId, question.waitId, { action: 'accept', content: { name: 'Ana' } })
    .catch((err: Error) => (err.cause as Error | undefined)?.message ?? err.message);
  expect(refused).toMatch(/^No open question .*its call ended/);

  await t.agents.answerWait(agentId, unknown.waits![0].waitId, { retry: true }, { by: 'ana' });
  const again = await until(agentId, 'the question asked again', (s) => !!s.waits?.some((w) => w.kind === 'elicitation'));
  expect(again.waits).toEqual([{ ...question, openedAt: question.openedAt }]); // the same wait, opened when first asked
  await t.agents.answerWait(agentId, question.waitId, { action: 'accept', content: { name: 'Ana' } }, { by: 'ana', door: 'rest' });

  await expect(t.agents.waitForAnswer(agentId, inputSeq)).resolves.toMatchObject({ status: 'answered' });
  const results = ((await t.agents.history(agentId)).find((e) => e.kind === 'tool_results') as ToolResultsEntry).results;
  expect(results[0].result).toContain('- Name: Ana');
  expect(results[0].metadata?.elicitations).toEqual([{ action: 'accept', door: 'rest', by: 'ana', at: expect.any(String) }]);
});
