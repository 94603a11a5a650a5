/**
 * The system instruction is set at start and changed by update or signal; each change is a history
 * entry, so every model call (and every replay) renders the instruction in force at that point.
 */
import { ScriptedModelProvider } from '../../activities/index';
import { configureSignal } from '../../workflows/messages';
import { eventually, uniqueId, withWorker } from '../support/temporal';
import { useTestConnection } from '../support/test-connection';

const { t, taskQueue } = useTestConnection('configure');

test('system instruction by update and by signal; bad changes are refused or dropped', async () => {
  const scripted = new ScriptedModelProvider({ sys: (req) => ({ text: `system=${req.systemPrompt ?? '(none)'}` }) });
  const agentId = uniqueId('cfg');
  await withWorker({ taskQueue, models: [scripted] }, async () => {
    await t.agents.start(agentId, { model: 'scripted:sys', systemInstruction: 'v1' });
    expect(await t.agents.ask(agentId, 'a')).toMatchObject({ answer: { contents: ['system=v1'] } });

    const status = await t.agents.configure(agentId, { systemInstruction: 'v2' });
    expect(status.systemInstruction).toBe('v2');
    expect(await t.agents.ask(agentId, 'b')).toMatchObject({ answer: { contents: ['system=v2'] } });

    await t.agents.handle(agentId).signal(configureSignal, { systemInstruction: 'v3' });
    await t.agents.handle(agentId).signal(configureSignal, { model: 'no colon' } as never); // dropped, logged
    await eventually(async () => (await t.agents.state(agentId)).systemInstruction === 'v3', 20_000, 'v3');
    expect(await t.agents.ask(agentId, 'c')).toMatchObject({ answer: { contents: ['system=v3'] } });

    await expect(t.agents.configure(agentId, { model: 'nocolon' })).rejects.toThrow();
    expect((await t.agents.state(agentId)).config.model).toBe('scripted:sys');

    const kinds = (await t.agents.history(agentId)).map((e) => (e.kind === 'system_instruction' ? `system:${e.instruction}` : e.kind));
    expect(kinds).toEqual(['system:v1', 'model_input', 'model_output', 'system:v2', 'model_input', 'model_output', 'system:v3', 'model_input', 'model_output']);
  });
});
