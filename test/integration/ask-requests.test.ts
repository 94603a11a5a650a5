/**
 * What `ask` asks of the server: one UpdateWorkflowExecution per plain turn, waited for to its completion,
 * and no PollWorkflowExecutionUpdate after it (accepted-then-polled cost a second request per turn, for
 * the client and the server). A followed ask (askTracked: the chat, the gateway) still returns at
 * acceptance, so its `taken` resolves before the turn ends.
 */
import { Client, Connection } from '@temporalio/client';
import { InterceptingCall, type Interceptor } from '@grpc/grpc-js';
import { AgentClient } from '../../client/agent-client';
import { livecontextDataConverter } from '../../common/codec/data-converter';
import { testAddress, uniqueId, withWorker } from '../support/temporal';
import { mkdtempSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';

jest.setTimeout(120_000);

const taskQueue = uniqueId('ask-requests');
const sent: string[] = [];
/** Records the method name of every request the client sends. */
const recordMethods: Interceptor = (options, next) => {
  sent.push(options.method_definition.path.split('/').pop()!);
  return new InterceptingCall(next(options));
};
let connection: Connection;
let agents: AgentClient;

beforeAll(async () => {
  connection = await Connection.connect({ address: testAddress(), interceptors: [recordMethods] });
  // No worker check: its describes are its own cost (at most every 10 s per agent), not the turn's.
  agents = new AgentClient(new Client({ connection, dataConverter: livecontextDataConverter() }), taskQueue, { workerCheck: false });
});
afterAll(() => connection.close());

const count = (method: string) => sent.filter((m) => m === method).length;

test('a plain turn through ask: one update request, no poll for its outcome', async () => {
  const workspaceRoot = mkdtempSync(path.join(tmpdir(), 'lc-ws-'));
  await withWorker({ taskQueue, workspaceRoot }, async () => {
    const agentId = uniqueId('one-request');
    await agents.start(agentId, { model: 'demo:offline' });
    sent.length = 0;
    for (let i = 1; i <= 3; i++) await expect(agents.ask(agentId, `question ${i}`)).resolves.toMatchObject({ status: 'answered', inputSeq: i });
    expect(count('UpdateWorkflowExecution')).toBe(3);
    expect(count('PollWorkflowExecutionUpdate')).toBe(0);
    expect(sent.filter((m) => m !== 'UpdateWorkflowExecution')).toEqual([]);

    // A followed ask learns of the acceptance first (the answer may be short-inline either way).
    sent.length = 0;
    const tracked = await agents.askTracked(agentId, 'question 4');
    await tracked.taken;
    await expect(tracked.outcome).resolves.toMatchObject({ status: 'answered', inputSeq: 4 });
    expect(count('UpdateWorkflowExecution')).toBe(1);
  });
});
