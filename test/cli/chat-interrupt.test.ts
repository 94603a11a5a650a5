/**
 * Interrupting from the console chat, on a real terminal: Ctrl-C once while the agent works ends the
 * turn (the slow tool is cancelled) and the chat stays attached with a fresh prompt; `/interrupt` does
 * the same, said once; Ctrl-C while the agent is idle detaches.
 */
import { mkdtempSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { z } from 'zod';
import { ScriptedModelProvider, defineTool } from '../../activities/index';
import { echoStep } from '../fixtures/scripts';
import { uniqueId, withWorker } from '../support/temporal';
import { useTestConnection } from '../support/test-connection';
import { startPtyChat } from './pty-chat';

const { t, taskQueue } = useTestConnection('chat-interrupt');
const env = { LIVECONTEXT_TASK_QUEUE: taskQueue };

const waitTool = defineTool({
  name: 'wait_long',
  description: 'Takes a long time.',
  parameters: z.object({}),
  execute: (_args, ctx) =>
    new Promise<string>((resolve, reject) => {
      const timer = setTimeout(() => resolve('done at last'), 120_000);
      ctx.signal.addEventListener('abort', () => {
        clearTimeout(timer);
        reject(new Error('cancelled'));
      });
    }),
});
// "slow" calls the slow tool; anything else is echoed.
const scripted = new ScriptedModelProvider({
  slowpoke: (req) => {
    const last = req.messages[req.messages.length - 1];
    const inner = last?.kind === 'live_screen' ? last.inner : last;
    if (inner?.kind === 'model_input' && inner.sections[0].content === 'slow') return { text: 'On it.', toolCalls: [{ name: 'wait_long', args: {} }] };
    return echoStep(req);
  },
});

test('Ctrl-C once interrupts the running turn, /interrupt too; Ctrl-C when idle detaches', async () => {
  await withWorker({ taskQueue, models: [scripted], tools: [waitTool], workspaceRoot: mkdtempSync(path.join(tmpdir(), 'lc-chat-int-')) }, async () => {
    const agentId = uniqueId('interruptible');
    await t.agents.start(agentId, { model: 'scripted:slowpoke' });
    const chat = startPtyChat(['chat', agentId], env);
    await chat.until((l) => l[l.length - 1] === 'you> ', 'the prompt', 60_000);

    chat.type('slow\r');
    await chat.until((l) => l.some((x) => x.includes('wait_long')), 'the tool to start', 30_000);
    chat.type('\x03'); // Ctrl-C
    await chat.until(
      (l) => l.some((x) => x.startsWith('(turn interrupted by chat')) && l[l.length - 1] === 'you> ',
      'the interrupt and a fresh prompt',
      30_000,
    );
    expect((await t.agents.state(agentId)).runState).toBe('WaitingInput');

    chat.type('again\r');
    await chat.until((l) => l.some((x) => x.includes('echo: again')), 'the next turn answered', 30_000);
    chat.type('slow\r');
    await chat.until((l) => l.filter((x) => x.includes('wait_long')).length >= 2, 'the tool to start again', 30_000);
    chat.type('/interrupt\r');
    await chat.until(
      (l) => l.filter((x) => x.startsWith('(turn interrupted by chat')).length === 2 && l[l.length - 1] === 'you> ',
      '/interrupt said so, and a fresh prompt',
      30_000,
    );
    // Said once: the interrupted turn as the agent recorded it, not also by the command.
    const typedAt = chat.lines().findIndex((x) => x.endsWith('/interrupt')); // typed while the agent works: no prompt before it
    expect(typedAt).toBeGreaterThan(0);
    const afterCommand = chat.lines().slice(typedAt);
    expect(afterCommand.filter((x) => /^\(turn interrupted|^Interrupted/.test(x))).toEqual(['(turn interrupted by chat; the agent waits for your input)']);

    chat.type('\x03'); // idle now: detaches
    expect(await chat.exited).toBe(0);
    const history = await t.agents.history(agentId);
    expect(history.filter((e) => e.kind === 'turn_end').map((e) => e.kind === 'turn_end' && e.by)).toEqual(['chat', 'chat']);
  });
});
