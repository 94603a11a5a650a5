/**
 * Bad input never hurts an agent: blank input is dropped as seed 004 says, oversized input is refused
 * by the update validator with a clear message, and a malformed signal is logged and dropped.
 */
import { mkdtempSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { WorkflowUpdateFailedError } from '@temporalio/client';
import { INPUT_MAX_BYTES } from '../../agent/index';
import { errorCode } from '../../agent/errors';
import { inputSignal } from '../../workflows/messages';
import { type ChildWorker, startChildWorker } from '../support/child-worker';
import { connectTest, eventually, type TestContext, uniqueId } from '../support/temporal';

let t: TestContext;
let worker: ChildWorker;
const taskQueue = uniqueId('bad-input');
beforeAll(async () => {
  t = await connectTest(taskQueue);
  worker = await startChildWorker({
    taskQueue,
    workspaceRoot: mkdtempSync(path.join(tmpdir(), 'lc-ws-')),
    controlDir: mkdtempSync(path.join(tmpdir(), 'lc-ctl-')),
  });
});
afterAll(async () => {
  await worker?.kill('SIGTERM');
  await t?.close();
});

test('blank input is accepted, then dropped without a model call; the next input is answered', async () => {
  const agentId = uniqueId('blank');
  await t.agents.start(agentId, { model: 'scripted:echo' });
  await expect(t.agents.ask(agentId, '   \n\t ')).resolves.toEqual({ inputSeq: 1, status: 'ignored', reason: 'blank input is dropped' });
  await expect(t.agents.ask(agentId, 'hello')).resolves.toMatchObject({ inputSeq: 2, status: 'answered', answer: { contents: ['echo: hello'] } });
  const history = await t.agents.history(agentId);
  expect(history.map((e) => e.kind)).toEqual(['model_input', 'model_output']);
});

test('input over the size limit is refused by the validator with a clear message; the agent is unaffected', async () => {
  const agentId = uniqueId('big');
  await t.agents.start(agentId, { model: 'scripted:echo' });
  const big = 'x'.repeat(INPUT_MAX_BYTES + 1);
  const err = await t.agents.send(agentId, big).catch((e) => e);
  expect(err).toBeInstanceOf(WorkflowUpdateFailedError);
  expect(err.cause.message).toMatch(/Input is 262145 bytes; the limit is 262144 bytes/);
  expect(errorCode(err)).toBe('INPUT_TOO_LARGE'); // recognisable without reading the message
  await expect(t.agents.ask(agentId, 'still here?')).resolves.toMatchObject({ inputSeq: 1, status: 'answered' });
  // A refused update leaves no trace in the workflow history.
  const events = (await t.agents.handle(agentId).fetchHistory()).events ?? [];
  expect(events.filter((e) => e.workflowExecutionUpdateAcceptedEventAttributes)).toHaveLength(1); // the one ask update
});

test('a malformed signal is dropped with a logged reason and never fails the workflow', async () => {
  const agentId = uniqueId('malformed');
  await t.agents.start(agentId, { model: 'scripted:echo' });
  const handle = t.agents.handle(agentId);
  await handle.signal(inputSignal, { txt: 'typo in the field name' } as never);
  await handle.signal(inputSignal, 42 as never);
  await t.agents.signal(agentId, 'valid one');
  await eventually(async () => (await t.agents.state(agentId)).lastSeq === 2, 30_000, 'the valid input to be answered');
  const history = await t.agents.history(agentId);
  expect(history.map((e) => (e.kind === 'model_output' ? e.contents[0] : e.kind))).toEqual(['model_input', 'echo: valid one']);
  expect(worker.output()).toMatch(/input signal dropped[\s\S]*Malformed input/);
  const desc = await handle.describe();
  expect(desc.status.name).toBe('RUNNING');
  const events = (await handle.fetchHistory()).events ?? [];
  expect(events.some((e) => e.workflowTaskFailedEventAttributes)).toBe(false);
});
