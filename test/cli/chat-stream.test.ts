/**
 * `livecontext chat` on a real terminal (a pseudo-terminal from util-linux `script`): the model's text
 * appears word by word while the model call is still running, through the official OpenAI SDK
 * against the wire-level fake.
 */
import { spawn } from 'node:child_process';
import path from 'node:path';
import { useProviderServers } from '../support/provider-servers';
import { eventually, testAddress, uniqueId, withWorker } from '../support/temporal';

const { t, p, taskQueue } = useProviderServers('chat-stream');

test('streamed output shows partial text before the model call ends', async () => {
  const words = Array.from({ length: 12 }, (_, i) => `w${String(i).padStart(2, '0')}`);
  p.openai.enqueue({ kind: 'stream', text: words.join(' '), chunkDelayMs: 250 });
  const id = uniqueId('tty');
  await withWorker({ taskQueue, models: p.models() }, async () => {
    await t.agents.start(id, { model: 'openai:gpt-4.1-mini' });
    const bin = path.resolve(__dirname, '../../bin/livecontext.js');
    const child = spawn('script', ['-qfec', `${process.execPath} ${bin} chat ${id}`, '/dev/null'], {
      env: { ...process.env, TEMPORAL_ADDRESS: testAddress(), LIVECONTEXT_TASK_QUEUE: taskQueue, TERM: 'dumb' },
      stdio: ['pipe', 'pipe', 'pipe'],
    });
    let out = '';
    child.stdout.on('data', (d) => (out += d));
    child.stderr.on('data', (d) => (out += d));
    const exited = new Promise<number | null>((resolve) => child.on('close', resolve));
    try {
      await eventually(() => out.includes('Attached to agent'), 30_000, 'the chat to attach');
      child.stdin.write('tell me twelve words\r');
      // The moment the first words show, the model call is still streaming: the last word is not there yet.
      await eventually(() => out.includes('w01'), 30_000, 'the first streamed words');
      const early = out;
      expect(early).not.toContain('w11');
      const history = await t.agents.history(id);
      expect(history.some((e) => e.kind === 'model_output')).toBe(false); // the call has not ended
      await eventually(() => out.includes('w11'), 30_000, 'the whole answer');
      child.stdin.write('/quit\r');
      expect(await exited).toBe(0);
      expect(out).toContain('Detached.');
    } finally {
      child.kill();
    }
  });
});
