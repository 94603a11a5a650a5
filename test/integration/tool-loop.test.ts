/**
 * A turn with a multi-step tool loop on the real dev server produces exactly the history seed 004
 * prescribes: input -> output with two calls -> one ToolResultsEntry in call order -> answer.
 */
import { mkdtempSync, readFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { ScriptedModelProvider } from '../../activities/index';
import { unwrap } from '../../agent/index';
import { loopScript } from '../fixtures/scripts';
import { recordTool } from '../fixtures/test-tools';
import { uniqueId, withWorker } from '../support/temporal';
import { useTestConnection } from '../support/test-connection';

const { t, taskQueue } = useTestConnection('tool-loop');

test('model -> two tool calls -> results -> model -> answer, each entry once, in order', async () => {
  const workspaceRoot = mkdtempSync(path.join(tmpdir(), 'lc-ws-'));
  const scripted = new ScriptedModelProvider({ loop: loopScript });
  const agentId = uniqueId('agent');
  await withWorker({ taskQueue, workspaceRoot, tools: [recordTool], models: [scripted] }, async () => {
    await t.agents.start(agentId, { model: 'scripted:loop', systemInstruction: 'You are a test agent.' });
    const outcome = await t.agents.ask(agentId, 'please record');
    expect(outcome).toMatchObject({ status: 'answered', inputSeq: 1 });
    if (outcome.status === 'answered') expect(outcome.answer.contents).toEqual(['all done']);

    const history = await t.agents.history(agentId);
    expect(history.map((e) => e.kind)).toEqual(['system_instruction', 'model_input', 'model_output', 'tool_results', 'model_output']);
    expect(history.map((e) => e.seq)).toEqual([1, 2, 3, 4, 5]);
    const [, input, call, results, answer] = history;
    expect(input).toMatchObject({ sections: [{ title: 'Input', content: 'please record' }], inputSeq: 1 });
    expect(call).toMatchObject({
      contents: ['Recording two things.'],
      toolCalls: [
        { toolName: 'record', toolCallId: 'call_0_0', arguments: { label: 'one' }, rawArguments: '{"label":"one"}' },
        { toolName: 'record', toolCallId: 'call_0_1', arguments: { label: 'two' } },
      ],
      invocation: { providerId: 'scripted', specification: 'scripted', model: 'loop' },
    });
    expect(results).toMatchObject({
      results: [
        { toolCallId: 'call_0_0', status: 'Success', result: 'recorded one' },
        { toolCallId: 'call_0_1', status: 'Success', result: 'recorded two' },
      ],
    });
    expect(answer).toMatchObject({ contents: ['all done'], toolCalls: [], usage: { inputTokens: 10, outputTokens: 2 } });
    expect(answer.metadata?.estimated_input_tokens).toBeGreaterThan(0);

    // The model was sent the rendered context, by reference: it saw the system prompt and the results.
    expect(scripted.requests.map((r) => r.systemPrompt)).toEqual(['You are a test agent.', 'You are a test agent.']);
    expect(scripted.requests[1].messages.map((m) => m.kind)).toEqual(['model_input', 'model_output', 'live_screen']);
    expect(scripted.requests[1].messages.map((m) => unwrap(m).kind)).toEqual(['model_input', 'model_output', 'tool_results']);
    expect(scripted.requests[0].toolSpecs.map((s) => s.name)).toEqual([
      'memory_notebook_replace',
      'todo_add',
      'todo_update',
      'sleep',
      'wait_until',
      'ask_user',
      'write_file',
      'read_file',
      'edit_file',
      'list_files',
      'delete_file',
      'record',
    ]);

    // Activities carry readable summaries for the Web UI.
    const events = (await t.agents.handle(agentId).fetchHistory()).events ?? [];
    const summaries = events
      .filter((e) => e.activityTaskScheduledEventAttributes)
      .map((e) => JSON.parse(Buffer.from(e.userMetadata!.summary!.data!).toString()));
    expect(summaries).toEqual(['model scripted:loop', 'tool record', 'tool record', 'model scripted:loop']);

    const log = readFileSync(path.join(workspaceRoot, agentId, 'executions.log'), 'utf8');
    expect(log.match(/^start /gm)).toHaveLength(2);

    const state = await t.agents.state(agentId);
    expect(state).toMatchObject({ runState: 'WaitingInput', blockedOn: 'input', lastSeq: 5, inboxLength: 0 });
    expect(state.usage).toEqual({ inputTokens: 10, outputTokens: 2, cachedInputTokens: 0, cacheHitRatio: 0, costUsd: 0, modelCalls: 2 });
    await t.agents.stop(agentId);
    await expect(t.agents.handle(agentId).result()).resolves.toMatchObject({ stopped: true });
  });
});
