/**
 * A killed worker is told from a live one at once (client/worker-probe.ts), although Temporal lists the
 * killed worker's pollers for a minute more: a query to an agent whose worker was SIGKILLed fails with
 * NoWorkerError saying no worker took a task, and a query to an agent whose worker is alive but answers
 * nothing for a while (SIGSTOPped: its open polls still take tasks) is waited for and answered. The CLI's
 * wait for a send says the worker is gone by the same probe, and the input is taken once when one comes.
 */
import { AgentClient } from '../../client/agent-client';
import { NoWorkerError } from '../../client/worker-status';
import { markWorkflowTasks, workerTakesTasks, workflowTaskWorked } from '../../client/worker-probe';
import { retrySignal } from '../../workflows/messages';
import { watchWorkerWhile } from '../../cli/worker-watch';
import { useChildWorkerFile } from '../support/child-worker';
import { uniqueId } from '../support/temporal';

const file = useChildWorkerFile('worker-gone');

test('a SIGKILLed worker: still listed as polling, but no worker takes a task, and a query says so', async () => {
  const worker = await file.restart();
  const id = uniqueId('orphan');
  await file.t.agents.start(id, { model: 'scripted:echo' });
  await file.t.agents.ask(id, 'hi');
  await worker.kill('SIGKILL');

  const agents = new AgentClient(file.t.client, file.taskQueue); // nothing remembered about earlier checks
  expect((await agents.workerStatus()).polling).toBe(true); // what Temporal lists for a minute more
  expect(await workerTakesTasks(file.t.client, file.taskQueue)).toBe(false);
  // A signal adds events to its history, but no worker completes a task of it.
  const killedMark = await markWorkflowTasks(file.t.client, id);
  await file.t.client.workflow.getHandle(id).signal(retrySignal);
  expect(await workflowTaskWorked(file.t.client, id, killedMark)).toBe(false);
  const err = await agents.state(id).then(
    () => undefined,
    (e: unknown) => e,
  );
  expect(err).toBeInstanceOf(NoWorkerError);
  expect((err as Error).message).toMatch(
    new RegExp(
      `^Agent "${id}" did not answer a query within \\d+\\.\\d s, and no worker took a task from its task queue\\. No worker is polling the task queue ${file.taskQueue}`,
    ),
  );

  // A new worker takes the tasks left waiting (the probe's too) and answers.
  await file.restart();
  expect(await workerTakesTasks(file.t.client, file.taskQueue, 30_000)).toBe(true);
  expect((await agents.state(id)).nextInputSeq).toBe(2);
  // A worker that completed a task of the agent since a mark is alive, whatever the probe found.
  const liveMark = await markWorkflowTasks(file.t.client, id);
  await agents.ask(id, 'again');
  expect(await workflowTaskWorked(file.t.client, id, liveMark)).toBe(true);
}, 240_000);

test('a live worker that answers nothing for a while (SIGSTOPped) is waited for, never called gone', async () => {
  const worker = await file.restart();
  const id = uniqueId('stalled');
  await file.t.agents.start(id, { model: 'scripted:echo' });
  await file.t.agents.ask(id, 'hi');

  const agents = new AgentClient(file.t.client, file.taskQueue);
  worker.proc.kill('SIGSTOP');
  try {
    const state = agents.state(id);
    // Its open polls still take the probe's task (Temporal marks it started), so it counts as alive.
    expect(await workerTakesTasks(file.t.client, file.taskQueue)).toBe(true);
    await new Promise((r) => setTimeout(r, 4_000)); // past the moment a killed worker is reported
    worker.proc.kill('SIGCONT');
    expect((await state).nextInputSeq).toBe(2);
  } finally {
    worker.proc.kill('SIGCONT');
  }
}, 240_000);

test("the CLI's wait for a send to a SIGKILLed worker's agent says no worker takes tasks, and the input is taken once when one starts", async () => {
  const worker = await file.restart();
  const id = uniqueId('cli-wait');
  await file.t.agents.start(id, { model: 'scripted:echo' });
  await file.t.agents.ask(id, 'hi');
  await worker.kill('SIGKILL');

  const agents = new AgentClient(file.t.client, file.taskQueue);
  const said: string[] = [];
  let restarted: Promise<unknown> | undefined;
  const sent = await watchWorkerWhile(agents.send(id, 'are you there'), {
    agents,
    agentId: id,
    awaiting: 'the agent to take the input',
    leaving: 'Ctrl-C stops waiting.',
    slowNotice: true,
    say: (line) => {
      said.push(line);
      if (line.startsWith('No worker')) restarted ??= file.restart(); // told: now a worker comes
    },
  });
  await restarted;
  // Temporal still lists the killed worker's pollers: only the probe could say this (a first look may only
  // say the wait is slow, while the killed worker still held the agent's own task).
  expect(said.find((line) => line.startsWith('No worker'))).toMatch(
    new RegExp(`^No worker takes tasks from the task queue ${file.taskQueue} in namespace default now .*: still waiting for the agent to take the input`),
  );
  expect(sent).toMatchObject({ inputSeq: 2 });
  const inputs = (await agents.history(id)).filter((e) => e.kind === 'model_input').map((e) => (e.kind === 'model_input' ? e.sections[0].content : ''));
  expect(inputs).toEqual(['hi', 'are you there']);
}, 240_000);
