/**
 * Long runs of one character (which made js-tiktoken's merge take minutes on the worker's event loop)
 * do not freeze a worker: while one agent counts a 10,000-letter input and a 64 KiB one-character tool
 * output, another agent on the same worker is answered. A correctness check, not a benchmark: the bound
 * is generous, and a frozen loop misses it by minutes.
 */
import { z } from 'zod';
import { defineTool } from '../../activities/index';
import { type RecordedOpenAIRequest } from '../support/fake-openai-server';
import { useProviderServers } from '../support/provider-servers';
import { uniqueId, withWorker } from '../support/temporal';

const { t, p, taskQueue } = useProviderServers('long-runs');

const FLOOD = 'x'.repeat(64 * 1024);
const flood = defineTool({ name: 'flood', description: 'Returns 64 KiB of one character.', parameters: z.object({}), execute: () => FLOOD });

/** Agent one: a flood call after its input, then an answer; agent two (no long run in sight): an answer. */
function respond(request: RecordedOpenAIRequest) {
  const messages = request.body.messages as Array<{ role: string; content?: unknown }>;
  if (!JSON.stringify(messages).includes('yyyyyyyy')) return { kind: 'stream' as const, text: 'Agent two here.' };
  if (messages[messages.length - 1].role === 'tool') return { kind: 'stream' as const, text: 'Agent one read it all.' };
  return { kind: 'stream' as const, toolCalls: [{ name: 'flood', arguments: '{}' }] };
}

test('an agent is answered while another on the same worker counts long runs of one character', async () => {
  p.openai.respond = respond;
  const one = uniqueId('runs-one');
  const two = uniqueId('runs-two');
  await withWorker({ taskQueue, tools: [flood], models: p.models() }, async () => {
    await t.agents.start(one, { model: 'openai:gpt-4.1-mini', tools: ['flood'] });
    await t.agents.start(two, { model: 'openai:gpt-4.1-mini', tools: [] });
    const [sentOne, sentTwo] = await Promise.all([t.agents.send(one, 'y'.repeat(10_000)), t.agents.send(two, 'Are you there?')]);

    const answerTwo = await t.agents.waitForAnswer(two, sentTwo.inputSeq);
    expect(answerTwo).toMatchObject({ status: 'answered', answer: { contents: ['Agent two here.'] } });

    const answerOne = await t.agents.waitForAnswer(one, sentOne.inputSeq);
    expect(answerOne).toMatchObject({ status: 'answered', answer: { contents: ['Agent one read it all.'] } });
  });
  // Agent one's last request carried the whole run and the whole tool output.
  const last = p.openai.requests.filter((r) => JSON.stringify(r.body).includes('yyyyyyyy')).pop()!;
  const messages = last.body.messages as Array<{ role: string; content: string }>;
  expect(messages.find((m) => m.role === 'user')!.content).toContain('y'.repeat(10_000));
  expect(messages.find((m) => m.role === 'tool')!.content).toContain(FLOOD);
});
