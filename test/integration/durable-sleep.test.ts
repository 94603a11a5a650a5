/**
 * The `sleep` tool is a workflow timer: the worker is SIGKILLed while the agent sleeps, no worker runs
 * when the timer fires, and a new worker carries on at the right time.
 */
import type { ToolResultsEntry } from '../../agent/index';
import { maybeRecordHistory } from '../support/record-history';
import { useChildWorkerFile } from '../support/child-worker';
import { eventually, uniqueId } from '../support/temporal';

const file = useChildWorkerFile('sleep');

test('sleep survives a worker restart and wakes at the right time', async () => {
  const agentId = uniqueId('sleeper');
  let worker = await file.restart();
  await file.t.agents.start(agentId, { model: 'scripted:sleeper' });
  const { inputSeq } = await file.t.agents.send(agentId, 'take a nap');
  const handle = file.t.agents.handle(agentId);
  const timerStarted = await eventually(
    async () => {
      const events = (await handle.fetchHistory()).events ?? [];
      return events.find((e) => e.timerStartedEventAttributes);
    },
    30_000,
    'the sleep timer to start',
  );
  await worker.kill('SIGKILL');
  await new Promise((r) => setTimeout(r, 3500)); // the timer fires while no worker runs
  worker = await file.restart();

  await expect(file.t.agents.waitForAnswer(agentId, inputSeq)).resolves.toMatchObject({ status: 'answered', answer: { contents: ['woke up'] } });
  const events = (await handle.fetchHistory()).events ?? [];
  const fired = events.find((e) => e.timerFiredEventAttributes)!;
  const ms = (e: typeof fired) => Number(e.eventTime!.seconds) * 1000 + Math.floor((e.eventTime!.nanos ?? 0) / 1e6);
  expect(ms(fired) - ms(timerStarted)).toBeGreaterThanOrEqual(3000);
  const result = (await file.t.agents.history(agentId)).find((e) => e.kind === 'tool_results') as ToolResultsEntry;
  expect(result.results[0]).toMatchObject({ toolName: 'sleep', status: 'Success', metadata: { waited_ms: 3000 } });
  expect(result.results[0].result).toMatch(/^Waited 3 s; it is now /);
  await maybeRecordHistory(handle, 'durable-sleep_v1.json');
});
