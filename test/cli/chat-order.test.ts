/**
 * The console chat shows a turn in order, on a real terminal: the prompt, the model's text as it
 * streams, tool progress, the answer, then a fresh prompt — and the answers that follow /retry,
 * /model, /system and /approve, and turns another client starts while the chat is attached.
 */
import { mkdtempSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { z } from 'zod';
import { ScriptedModelProvider, defineTool } from '../../activities/index';
import { echoScript, echoStep } from '../fixtures/scripts';
import { recordTool } from '../fixtures/test-tools';
import { useProviderServers } from '../support/provider-servers';
import { uniqueId, withWorker } from '../support/temporal';
import { type PtyChat, startPtyChat } from './pty-chat';

// Fresh fake providers per test, so responses one test left unused never answer another.
const { t, p, taskQueue } = useProviderServers('chat-order', { each: true });
const env = { LIVECONTEXT_TASK_QUEUE: taskQueue };

const guardedTool = defineTool({
  name: 'guarded',
  description: 'Does something a person must approve first.',
  parameters: z.object({}),
  needsApproval: () => 'it changes things',
  execute: () => 'guarded thing done',
});

function worker<T>(fn: () => Promise<T>): Promise<T> {
  const scripted = new ScriptedModelProvider({
    echo: echoScript,
    // One approval-gated call, then an answer; later turns echo.
    guarded: (req) =>
      req.step === 0 ? { toolCalls: [{ name: 'guarded', args: {} }] } : req.step === 1 ? { text: 'the guarded thing is done' } : echoStep(req),
  });
  return withWorker(
    { taskQueue, models: [...p.models(), scripted], tools: [recordTool, guardedTool], workspaceRoot: mkdtempSync(path.join(tmpdir(), 'lc-chat-order-')) },
    fn,
  );
}

/** The screen's lines from the last one starting with `marker` on. */
function from(lines: string[], marker: string): string[] {
  for (let i = lines.length - 1; i >= 0; i--) if (lines[i].startsWith(marker)) return lines.slice(i);
  return [];
}

async function attach(agentId: string): Promise<PtyChat> {
  const chat = startPtyChat(['chat', agentId], env);
  await chat.until((l) => l.some((x) => x.startsWith('Attached to agent')) && l[l.length - 1] === 'you> ', 'the chat to attach and prompt', 60_000);
  return chat;
}

async function quit(chat: PtyChat) {
  chat.type('/quit\r');
  expect(await chat.exited).toBe(0);
}

test('a turn: the prompt, streamed text, tool progress, the answer, a fresh prompt', async () => {
  const id = uniqueId('order');
  p.openai.enqueue(
    { kind: 'stream', text: 'Let me write that down right away.', toolCalls: [{ name: 'record', arguments: '{"label":"milk"}' }], chunkDelayMs: 150 },
    { kind: 'stream', text: 'Noted: milk is on the list.', chunkDelayMs: 50 },
  );
  await worker(async () => {
    await t.agents.start(id, { model: 'openai:gpt-4.1-mini' });
    const chat = await attach(id);
    try {
      chat.type('remember milk\r');
      // While the text streams, it is the last thing on screen: no prompt before the answer.
      await chat.until((l) => /^agent> Let me/.test(l[l.length - 1]), 'the first streamed words');
      expect(chat.lines().join('\n')).not.toContain('away.');
      expect(from(chat.lines(), 'you> remember milk')).toEqual(['you> remember milk', expect.stringMatching(/^agent> Let me/)]);

      await chat.until((l) => l[l.length - 1] === 'you> ' && l.some((x) => x.includes('milk is on the list')), 'the answer and a fresh prompt');
      expect(from(chat.lines(), 'you> remember milk')).toEqual([
        'you> remember milk',
        'agent> Let me write that down right away.',
        '  · record {"label":"milk"}',
        '    ✓ record: recorded milk',
        'agent> Noted: milk is on the list.',
        'you> ',
      ]);

      expect(from(chat.lines(), 'Attached')[0]).toMatch(/\(openai:gpt-4\.1-mini; waiting for input; 0 entries\)/);
      chat.type('/state\r');
      await chat.until((l) => l[l.length - 1] === 'you> ' && l.some((x) => x.startsWith('agent ')), 'the state');
      expect(from(chat.lines(), 'you> /state').slice(0, 3)).toEqual(['you> /state', `agent ${id}: waiting for input`, 'model openai:gpt-4.1-mini']);
      await quit(chat);
    } finally {
      chat.kill();
    }
  });
});

test('the answers after /retry, /model and /system appear, each followed by a prompt', async () => {
  const id = uniqueId('retry');
  p.openai.enqueue(
    { kind: 'error', status: 401 },
    { kind: 'stream', text: 'second try works' },
    { kind: 'error', status: 401 },
    { kind: 'error', status: 401 },
    { kind: 'stream', text: 'brief now' },
  );
  await worker(async () => {
    await t.agents.start(id, { model: 'openai:gpt-4.1-mini' });
    const chat = await attach(id);
    try {
      chat.type('hello\r');
      await chat.until((l) => l[l.length - 1] === 'you> ' && l.some((x) => x.includes('blocked by an error')), 'the error');
      chat.type('/retry\r');
      await chat.until((l) => l[l.length - 1] === 'you> ' && l.some((x) => x.includes('second try works')), 'the answer after /retry');
      expect(from(chat.lines(), 'you> hello')).toEqual([
        'you> hello',
        expect.stringMatching(/^agent> \(blocked by an error: .*401.*\) \/retry tries again/),
        'you> /retry',
        'Retrying.',
        'agent> second try works',
        'you> ',
      ]);

      chat.type('and again\r');
      await chat.until((l) => from(l, 'you> and again').length === 3 && l[l.length - 1] === 'you> ', 'the second error');
      chat.type('/model scripted:echo\r');
      await chat.until((l) => l[l.length - 1] === 'you> ' && l.some((x) => x.includes('echo: and again')), 'the answer after /model');
      expect(from(chat.lines(), 'you> and again')).toEqual([
        'you> and again',
        expect.stringMatching(/^agent> \(blocked by an error: /),
        'you> /model scripted:echo',
        'Model: scripted:echo.',
        'agent> echo: and again',
        'you> ',
      ]);

      // A new system instruction also tries the failed call again, and its answer shows.
      chat.type('/model openai:gpt-4.1-mini\r');
      await chat.until((l) => from(l, 'you> /model openai').length === 3 && l[l.length - 1] === 'you> ', 'the model switched back');
      chat.type('once more\r');
      await chat.until((l) => from(l, 'you> once more').length === 3 && l[l.length - 1] === 'you> ', 'the third error');
      chat.type('/system Be brief.\r');
      await chat.until((l) => l[l.length - 1] === 'you> ' && l.some((x) => x.includes('brief now')), 'the answer after /system');
      expect(from(chat.lines(), 'you> once more')).toEqual([
        'you> once more',
        expect.stringMatching(/^agent> \(blocked by an error: /),
        'you> /system Be brief.',
        'System instruction set.',
        'agent> brief now',
        'you> ',
      ]);
      const lastRequest = p.openai.requests[p.openai.requests.length - 1].body.messages as Array<{ role: string; content: unknown }>;
      expect(lastRequest[0]).toMatchObject({ role: 'system', content: expect.stringContaining('Be brief.') });
      await quit(chat);
    } finally {
      chat.kill();
    }
  });
});

test('a turn another client starts shows up, and so does the answer after /approve', async () => {
  const id = uniqueId('others');
  await worker(async () => {
    await t.agents.start(id, { model: 'scripted:guarded' });
    const chat = await attach(id);
    try {
      await t.agents.send(id, { text: 'please do the guarded thing', sender: 'ops' });
      await chat.until((l) => l[l.length - 1] === 'you> ' && l.some((x) => x.includes('needs approval')), 'the approval request');
      chat.type('/approve\r');
      await chat.until((l) => l[l.length - 1] === 'you> ' && l.some((x) => x.includes('the guarded thing is done')), 'the answer after /approve');
      expect(from(chat.lines(), 'ops> ')).toEqual([
        'ops> please do the guarded thing',
        '  · guarded {}',
        '  ? guarded {} needs approval (it changes things): /approve call_0_0 or /deny call_0_0 [reason]',
        'you> /approve',
        'Approved call_0_0.',
        '    ✓ guarded: guarded thing done',
        'agent> the guarded thing is done',
        'you> ',
      ]);

      await t.agents.send(id, 'anyone there?');
      await chat.until((l) => l[l.length - 1] === 'you> ' && l.some((x) => x.includes('echo: anyone there?')), "the other client's answer");
      expect(from(chat.lines(), 'another client> ')).toEqual(['another client> anyone there?', 'agent> echo: anyone there?', 'you> ']);
      await quit(chat);
    } finally {
      chat.kill();
    }
  });
});
