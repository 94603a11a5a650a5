/**
 * The notebook stays bounded however long the agent lives: the model's edit that would take it past
 * 64 K characters fails and changes nothing, and the model is told how to make room.
 */
import { ScriptedModelProvider, type ScriptedRequest } from '../../activities/index';
import { NOTEBOOK_MAX_CHARS, unwrap } from '../../agent/index';
import { maybeRecordHistory } from '../support/record-history';
import { uniqueId, withWorker } from '../support/temporal';
import { useTestConnection } from '../support/test-connection';

const { t, taskQueue } = useTestConnection('notebook-bound');

test("an edit past the notebook's bound fails with what to do; a shrinking edit then goes through", async () => {
  const note = (label: string) => `${label}: ${'n'.repeat(40 * 1024)}\n`;
  const model = new ScriptedModelProvider({
    writer: (req: ScriptedRequest) => {
      const last = unwrap(req.messages[req.messages.length - 1]);
      if (last.kind === 'model_input') {
        const text = last.sections[0].content;
        if (text === 'tidy') return { toolCalls: [{ name: 'memory_notebook_replace', args: { old_text: note('first'), new_text: 'first: short\n' } }] };
        return { toolCalls: [{ name: 'memory_notebook_replace', args: { old_text: '', new_text: note(text) } }] };
      }
      return { text: last.kind === 'tool_results' ? `${last.results[0].status}: ${last.results[0].result.slice(0, 200)}` : 'ok' };
    },
  });
  const agentId = uniqueId('bounded-notebook');
  await withWorker({ taskQueue, models: [model] }, async () => {
    await t.agents.start(agentId, { model: 'scripted:writer' });
    expect(await t.agents.ask(agentId, 'first')).toMatchObject({ status: 'answered', answer: { contents: [expect.stringMatching(/^Success/)] } });
    const refused = await t.agents.ask(agentId, 'second');
    expect(refused).toMatchObject({
      status: 'answered',
      answer: { contents: [expect.stringMatching(/^Failed: The notebook would hold \d+ characters; it holds at most 65536/)] },
    });
    expect((await t.agents.state(agentId)).notebook).toBe(note('first'));
    expect(await t.agents.ask(agentId, 'tidy')).toMatchObject({ answer: { contents: [expect.stringMatching(/^Success/)] } });
    expect((await t.agents.state(agentId)).notebook).toBe('first: short\n');
    expect(await t.agents.ask(agentId, 'third')).toMatchObject({ answer: { contents: [expect.stringMatching(/^Success/)] } });
    expect((await t.agents.state(agentId)).notebook!.length).toBeLessThanOrEqual(NOTEBOOK_MAX_CHARS);
    await maybeRecordHistory(t.agents.handle(agentId), 'notebook-bound_v1.json');
    await t.agents.stop(agentId);
  });
});
