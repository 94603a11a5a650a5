/**
 * A reply that asks for more tool calls than an agent runs at once gets one ExecuteError (seed 000)
 * for the batch: nothing is run, the model is told why, and the agent goes on — on a real dev server,
 * through a real provider's wire protocol (every call answered, as OpenAI requires).
 */
import { MAX_TOOL_CALLS_PER_BATCH } from '../../agent/index';
import { maybeRecordHistory } from '../support/record-history';
import { uniqueId, withWorker } from '../support/temporal';
import { useTestConnection } from '../support/test-connection';
import { startFakeOpenAIServer } from '../support/fake-openai-server';
import { openaiProvider } from '../../activities/index';

const { t, taskQueue } = useTestConnection('execute-error');

test('too many tool calls in one reply: an ExecuteError answers the batch and the turn goes on', async () => {
  const fake = await startFakeOpenAIServer();
  const calls = Array.from({ length: MAX_TOOL_CALLS_PER_BATCH + 2 }, (_, i) => ({ name: 'read_file', arguments: JSON.stringify({ path: `f${i}.txt` }) }));
  let step = 0;
  fake.respond = () => (step++ === 0 ? { kind: 'stream', toolCalls: calls } : { kind: 'stream', text: 'I will read fewer files at once.' });
  try {
    await withWorker({ taskQueue, models: [openaiProvider({ apiKey: fake.apiKey, baseURL: `${fake.url}/v1` })] }, async () => {
      const agentId = uniqueId('many-calls');
      await t.agents.start(agentId, { model: 'openai:gpt-4.1-mini' });
      await expect(t.agents.ask(agentId, 'read everything')).resolves.toMatchObject({
        status: 'answered',
        answer: { contents: ['I will read fewer files at once.'] },
      });
      const history = await t.agents.history(agentId);
      expect(history.find((e) => e.kind === 'tool_results')).toMatchObject({ results: [], executeError: expect.stringMatching(/130 tool calls at once/) });
      // No tool activity was scheduled; the second request answered each of the 130 calls (the fake validates that).
      const events = (await t.agents.handle(agentId).fetchHistory()).events ?? [];
      expect(events.flatMap((e) => e.activityTaskScheduledEventAttributes?.activityType?.name ?? [])).toEqual(['callModel', 'callModel']);
      const second = fake.requests[1].body.messages as Array<{ role: string; tool_call_id?: string; content: string }>;
      const toolMessages = second.filter((m) => m.role === 'tool');
      expect(toolMessages).toHaveLength(calls.length);
      expect(toolMessages[0].content).toMatch(/Not run: The reply asked for 130 tool calls/);
      await maybeRecordHistory(t.agents.handle(agentId), 'execute-error_v1.json');
    });
  } finally {
    await fake.close();
  }
});
