/**
 * `/model` in the chat on a terminal: without an argument it shows the model; with one no worker can
 * call, it warns at once (as `livecontext start` does), in the chat's own words (/model, /retry).
 */
import { ScriptedModelProvider } from '../../activities/index';
import { echoScript } from '../fixtures/scripts';
import { uniqueId, withWorker } from '../support/temporal';
import { useTestConnection } from '../support/test-connection';
import { startPtyChat } from './pty-chat';

const { t, taskQueue } = useTestConnection('chat-model');
const env = { LIVECONTEXT_TASK_QUEUE: taskQueue };

test('/model shows the model; /model with one no worker can call warns at once', async () => {
  await withWorker({ taskQueue, models: [new ScriptedModelProvider({ echo: echoScript })] }, async () => {
    const agentId = uniqueId('modeled');
    await t.agents.start(agentId, { model: 'scripted:echo', fallbackModels: ['demo:offline'] });
    const chat = startPtyChat(['chat', agentId], env);
    try {
      await chat.until((l) => l[l.length - 1] === 'you> ', 'the prompt', 60_000);
      chat.type('/model\r');
      await chat.until(
        (l) => l.includes('Model: scripted:echo, then demo:offline when it fails. /model provider:model changes it.'),
        'the model shown',
        30_000,
      );

      chat.type('/model nosuch:thing\r');
      await chat.until((l) => l.some((x) => x.startsWith('(warning:')), 'the warning', 30_000);
      const lines = chat.lines();
      expect(lines).toContain('Model: nosuch:thing.');
      const warning = lines.find((x) => x.startsWith('(warning:'))!;
      expect(warning).toContain('the worker has no model provider "nosuch"');
      expect(warning).toContain('or choose another model: /model provider:model.');
      expect((await t.agents.state(agentId)).config.model).toBe('nosuch:thing');

      chat.type('/model scripted:echo\r');
      await chat.until((l) => l.includes('Model: scripted:echo.'), 'the model changed back', 30_000);
      await chat.until((l) => l[l.length - 1] === 'you> ', 'the prompt', 30_000);
      expect(chat.lines().filter((x) => x.startsWith('(warning:'))).toHaveLength(1); // a model the worker can call: no warning
      chat.type('/quit\r');
      expect(await chat.exited).toBe(0);
    } finally {
      chat.kill();
    }
  });
}, 300_000);
