/**
 * No payload comes near Temporal's limits: a 3 MB model answer and a 250 KB input are offloaded to the
 * blob store by the payload codec, history events stay small, and every path (answer, history query,
 * update result) still works. No workflow task retries because of size. With offloading turned off,
 * what would exceed Temporal's limits is refused with a clear error and the agent lives on.
 */
import { Client } from '@temporalio/client';
import { ScriptedModelProvider } from '../../activities/index';
import { AgentClient } from '../../client/agent-client';
import { livecontextDataConverter } from '../../common/codec/data-converter';
import { eventually, uniqueId, withWorker } from '../support/temporal';
import { useTestConnection } from '../support/test-connection';

const { t, taskQueue } = useTestConnection('large');
/** A working set the archive leaves whole (64 MiB): states this large are what the size guard is for. */
const LARGE_WORKING_SET = 64 * 1024 * 1024;

test('3 MB of model output and a 250 KB input go through; history holds references', async () => {
  const huge = 'y'.repeat(3 * 1024 * 1024);
  const scripted = new ScriptedModelProvider({ huge: () => ({ text: huge }) });
  const agentId = uniqueId('big');
  await withWorker({ taskQueue, models: [scripted] }, async () => {
    await t.agents.start(agentId, { model: 'scripted:huge' });
    const outcome = await t.agents.ask(agentId, `big input ${'z'.repeat(250 * 1024)}`);
    expect(outcome).toMatchObject({ status: 'answered' });
    if (outcome.status === 'answered') expect(outcome.answer.contents[0]).toHaveLength(huge.length);
    const history = await t.agents.history(agentId);
    expect(history.map((e) => e.kind)).toEqual(['model_input', 'model_output']);

    const events = (await t.agents.handle(agentId).fetchHistory()).events ?? [];
    const biggest = Math.max(...events.map((e) => JSON.stringify(e).length));
    expect(biggest).toBeLessThan(64 * 1024); // every event small: large payloads are references
    expect(events.some((e) => e.workflowTaskFailedEventAttributes)).toBe(false);
  });
});

describe('with offloading turned off (LIVECONTEXT_OFFLOAD=0)', () => {
  const dataConverter = livecontextDataConverter({ offload: false });
  const agentsWithout = () => new AgentClient(new Client({ connection: t.connection, dataConverter }), taskQueue);

  test('an answer over the payload limit is refused once, clearly, and the agent carries on', async () => {
    const scripted = new ScriptedModelProvider({ huge: () => ({ text: 'y'.repeat(3 * 1024 * 1024) }), small: () => ({ text: 'short answer' }) });
    const agents = agentsWithout();
    const agentId = uniqueId('refused');
    await withWorker({ taskQueue, models: [scripted], dataConverter }, async () => {
      await agents.start(agentId, { model: 'scripted:huge' });
      const outcome = await agents.ask(agentId, 'write me a novel');
      expect(outcome).toMatchObject({ status: 'error', error: { code: 'ModelError.OutputTooLarge' } });
      if (outcome.status === 'error') expect(outcome.error.message).toMatch(/3\.0 MB, over Temporal's 2 MB payload limit.*LIVECONTEXT_OFFLOAD=0/);
      const events = (await agents.handle(agentId).fetchHistory()).events ?? [];
      expect(events.filter((e) => e.activityTaskStartedEventAttributes).map((e) => e.activityTaskStartedEventAttributes!.attempt)).toEqual([1]);

      await agents.configure(agentId, { model: 'scripted:small' }); // the same input is answered now
      const history = await eventually(
        async () => {
          const h = await agents.history(agentId);
          return h.some((e) => e.kind === 'model_output') ? h : undefined;
        },
        20_000,
        'the answer after configure',
      );
      // The refused call is in the record (the model never sees it), then the answer.
      expect(history.map((e) => e.kind)).toEqual(['model_input', 'model_failure', 'model_output']);
      expect(history[1]).toMatchObject({ kind: 'model_failure', code: 'ModelError.OutputTooLarge', model: 'scripted:huge' });
    });
  });

  test('retry then wait, delivered together, waits for the retried call instead of returning the old error', async () => {
    let huge = true;
    const scripted = () => new ScriptedModelProvider({ flip: () => ({ text: huge ? 'y'.repeat(3 * 1024 * 1024) : 'fits now' }) });
    const agents = agentsWithout();
    const agentId = uniqueId('retried');
    await withWorker({ taskQueue, models: [scripted()], dataConverter }, async () => {
      await agents.start(agentId, { model: 'scripted:flip' });
      expect(await agents.ask(agentId, 'go')).toMatchObject({ status: 'error' });
    });
    // No worker now: the retry signal and the wait reach the agent in one workflow task.
    await agents.retry(agentId);
    const waiting = agents.waitForAnswer(agentId, 1);
    await new Promise((r) => setTimeout(r, 500));
    huge = false;
    await withWorker({ taskQueue, models: [scripted()], dataConverter }, async () => {
      expect(await waiting).toMatchObject({ status: 'answered', answer: { contents: ['fits now'] } });
    });
  });

  test('a state too large to carry keeps the agent in its run, working, with a warning', async () => {
    const scripted = new ScriptedModelProvider({ big: (req) => ({ text: `${req.step}:${'y'.repeat(600 * 1024)}` }) });
    const agents = agentsWithout();
    const agentId = uniqueId('uncarried');
    await withWorker({ taskQueue, models: [scripted], dataConverter }, async () => {
      // Past the budget at the third answer, when the state (1.8 MB) is over the inline limit.
      const { firstExecutionRunId } = await agents.start(agentId, { model: 'scripted:big', historyBudgetBytes: 1_500_000, workingSetBytes: LARGE_WORKING_SET });
      for (let i = 0; i < 5; i++) expect(await agents.ask(agentId, `q${i}`)).toMatchObject({ status: 'answered' });
      const description = await agents.handle(agentId).describe();
      expect(description.status.name).toBe('RUNNING'); // without the guard Temporal terminates it here
      expect(description.runId).toBe(firstExecutionRunId);
      const state = await agents.state(agentId);
      expect(state.warning).toMatch(/over Temporal's 2 MB payload limit.*cannot continue as new/);
      expect(state.entryCount).toBe(10);
      const events = (await agents.handle(agentId).fetchHistory()).events ?? [];
      expect(events.some((e) => e.workflowTaskFailedEventAttributes)).toBe(false);
    });
  });
});

test('with offloading, the same large state is carried to a new run', async () => {
  const scripted = new ScriptedModelProvider({ big: (req) => ({ text: `${req.step}:${'y'.repeat(600 * 1024)}` }) });
  const agentId = uniqueId('carried');
  await withWorker({ taskQueue, models: [scripted] }, async () => {
    // Offloaded answers leave history small, so a small budget makes the agent continue as new.
    const { firstExecutionRunId } = await t.agents.start(agentId, { model: 'scripted:big', historyBudgetBytes: 4_000, workingSetBytes: LARGE_WORKING_SET });
    for (let i = 0; i < 5; i++) expect(await t.agents.ask(agentId, `q${i}`)).toMatchObject({ status: 'answered' });
    expect((await t.agents.handle(agentId).describe()).runId).not.toBe(firstExecutionRunId);
    // The last boundary carried over 1.5 MB of state: the run before it asked its worker (a local activity).
    const events = (await t.agents.handle(agentId).fetchHistory()).events ?? [];
    const previous = events[0].workflowExecutionStartedEventAttributes?.continuedExecutionRunId;
    expect(previous).toBeTruthy();
    const before = (await t.client.workflow.getHandle(agentId, previous!).fetchHistory()).events ?? [];
    const markers = before.map((e) => e.markerRecordedEventAttributes?.markerName).filter(Boolean);
    expect(markers).toEqual(expect.arrayContaining(['core_local_activity']));
    const state = await t.agents.state(agentId);
    expect(state.warning).toBeNull();
    expect((await t.agents.history(agentId)).map((e) => e.seq)).toEqual(Array.from({ length: 10 }, (_, i) => i + 1));
  });
});

test('an agent held in its run moves on once its workers offload', async () => {
  const big = (req: { step: number }) => ({ text: `${req.step}:${'y'.repeat(600 * 1024)}` });
  const small = (req: { step: number }) => ({ text: `small ${req.step}` });
  const offDataConverter = livecontextDataConverter({ offload: false });
  const agentsOff = new AgentClient(new Client({ connection: t.connection, dataConverter: offDataConverter }), taskQueue);
  const agentId = uniqueId('moves-on');
  const { firstExecutionRunId } = await agentsOff.start(agentId, { model: 'scripted:big', historyBudgetBytes: 1_500_000, workingSetBytes: LARGE_WORKING_SET });
  await withWorker({ taskQueue, models: [new ScriptedModelProvider({ big, small })], dataConverter: offDataConverter }, async () => {
    for (let i = 0; i < 4; i++) expect(await agentsOff.ask(agentId, `q${i}`)).toMatchObject({ status: 'answered' });
    expect((await agentsOff.state(agentId)).warning).toMatch(/cannot continue as new/);
  });
  // The same agent on a worker (and client) that offload: within 200 events it is asked again and moves on.
  await withWorker({ taskQueue, models: [new ScriptedModelProvider({ big, small })] }, async () => {
    await t.agents.configure(agentId, { model: 'scripted:small' });
    for (let i = 0; i < 25 && (await t.agents.handle(agentId).describe()).runId === firstExecutionRunId; i++) {
      expect(await t.agents.ask(agentId, `more ${i}`)).toMatchObject({ status: 'answered' });
    }
    expect((await t.agents.handle(agentId).describe()).runId).not.toBe(firstExecutionRunId);
    const state = await t.agents.state(agentId);
    expect(state.warning).toBeNull();
    expect((await t.agents.history(agentId)).map((e) => e.seq)).toEqual(Array.from({ length: state.lastSeq }, (_, i) => i + 1));
  });
});
