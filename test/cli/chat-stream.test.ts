/**
 * `livecontext chat` on a real terminal (a pseudo-terminal from util-linux `script`): the model's text
 * appears word by word while the model call is still running, through the official OpenAI SDK
 * against the wire-level fake.
 */
import { useProviderServers } from '../support/provider-servers';
import { eventually, uniqueId, withWorker } from '../support/temporal';
import { startPtyChat } from './pty-chat';

const { t, p, taskQueue } = useProviderServers('chat-stream');

test('streamed output shows partial text before the model call ends', async () => {
  const words = Array.from({ length: 12 }, (_, i) => `w${String(i).padStart(2, '0')}`);
  p.openai.enqueue({ kind: 'stream', text: words.join(' '), chunkDelayMs: 250 });
  const id = uniqueId('tty');
  await withWorker({ taskQueue, models: p.models() }, async () => {
    await t.agents.start(id, { model: 'openai:gpt-4.1-mini' });
    const chat = startPtyChat(['chat', id], { LIVECONTEXT_TASK_QUEUE: taskQueue });
    try {
      await eventually(() => chat.raw().includes('Attached to agent'), 30_000, 'the chat to attach');
      chat.type('tell me twelve words\r');
      // The moment the first words show, the model call is still streaming: the last word is not there yet.
      await eventually(() => chat.raw().includes('w01'), 30_000, 'the first streamed words');
      const early = chat.raw();
      expect(early).not.toContain('w11');
      const history = await t.agents.history(id);
      expect(history.some((e) => e.kind === 'model_output')).toBe(false); // the call has not ended
      await eventually(() => chat.raw().includes('w11'), 30_000, 'the whole answer');
      chat.type('/quit\r');
      expect(await chat.exited).toBe(0);
      expect(chat.raw()).toContain('Detached.');
    } finally {
      chat.kill();
    }
  });
});
