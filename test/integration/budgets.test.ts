/**
 * Budgets stop a runaway agent: a model that calls a tool on every reply is stopped by the default
 * per-turn budget (50 model calls) with the reason in its state; raising the limit lets it go on from
 * where it stopped, and a retry allows as much again. Token budgets stop it by usage. On a real dev
 * server; the recorded history replays.
 */
import { ScriptedModelProvider, type Script } from '../../activities/index';
import { DEFAULT_BUDGETS } from '../../agent/budgets';
import { maybeRecordHistory } from '../support/record-history';
import { uniqueId, withWorker } from '../support/temporal';
import { useTestConnection } from '../support/test-connection';
import { cli } from '../support/cli';

const { t, taskQueue } = useTestConnection('budgets');

/** Calls todo_add (a widget tool: it runs in the workflow, so a long loop stays quick) until step 60. */
const looper: Script = (req) =>
  req.step >= 60
    ? { text: `stopped looping after ${req.step} calls` }
    : { toolCalls: [{ name: 'todo_add', args: { titles: [`step ${req.step}`] } }], usage: { inputTokens: 100, outputTokens: 10 } };

const modelCalls = async (agentId: string) => (await t.agents.history(agentId)).filter((e) => e.kind === 'model_output').length;

test('a looping model is stopped by the default turn budget, goes on after configure raises it, and after a retry', async () => {
  await withWorker({ taskQueue, models: [new ScriptedModelProvider({ looper })] }, async () => {
    const agentId = uniqueId('looper');
    await t.agents.start(agentId, { model: 'scripted:looper' });
    const { inputSeq } = await t.agents.send(agentId, 'go');

    const stopped = await t.agents.waitForAnswer(agentId, inputSeq);
    expect(stopped).toMatchObject({ status: 'error', error: { code: 'Budget.TurnModelCalls' } });
    expect(await modelCalls(agentId)).toBe(DEFAULT_BUDGETS.turnModelCalls);
    const state = await t.agents.state(agentId);
    expect(state).toMatchObject({
      blockedOn: 'error',
      lastError: { code: 'Budget.TurnModelCalls', message: expect.stringMatching(/made 50 model calls.*configure.*retry/) },
    });
    const shown = await cli(['state', agentId], { env: { LIVECONTEXT_TASK_QUEUE: taskQueue } });
    expect(shown.stdout).toMatch(/Budget\.TurnModelCalls/);

    // A higher limit: it carries on from where it stopped, to the new limit.
    await t.agents.configure(agentId, { budgets: { turnModelCalls: 55 } });
    await expect(t.agents.waitForAnswer(agentId, inputSeq)).resolves.toMatchObject({ status: 'error', error: { code: 'Budget.TurnModelCalls' } });
    expect(await modelCalls(agentId)).toBe(55);

    // A retry allows as much again from here: the model finishes on its own at its 61st call.
    await expect(t.agents.retryIfBlocked(agentId)).resolves.toMatchObject({ code: 'Budget.TurnModelCalls' });
    const done = await t.agents.waitForAnswer(agentId, inputSeq);
    expect(done).toMatchObject({ status: 'answered', answer: { contents: ['stopped looping after 60 calls'] } });
    expect(await modelCalls(agentId)).toBe(61);
    expect((await t.agents.state(agentId)).tasks).toHaveLength(60); // every tool call ran once

    // A new turn counts from its own input; the token budget per turn stops it first here.
    await t.agents.configure(agentId, { budgets: { turnTokens: 300 } });
    const next = await t.agents.ask(agentId, 'again');
    expect(next).toMatchObject({ status: 'answered' }); // step 61+ answers at once: one call, no tokens
    await maybeRecordHistory(t.agents.handle(agentId), 'budgets_v1.json');
  });
});

test('a token budget per turn stops the loop by usage', async () => {
  await withWorker({ taskQueue, models: [new ScriptedModelProvider({ looper })] }, async () => {
    const agentId = uniqueId('looper-tokens');
    await t.agents.start(agentId, { model: 'scripted:looper', budgets: { turnTokens: 500 } });
    const outcome = await t.agents.ask(agentId, 'go');
    expect(outcome).toMatchObject({ status: 'error', error: { code: 'Budget.TurnTokens', message: expect.stringMatching(/550 tokens; its budget is 500/) } });
    expect(await modelCalls(agentId)).toBe(5); // 5 × 110 tokens reached 500
  });
});
