/**
 * A model, a tool or an agent id cannot steer the user's terminal: escape sequences in model text, tool
 * arguments and results, and agent ids reach the terminal as visible text, never as controls — in the
 * chat on a real terminal, where approvals are decided, and in send --wait, state, history, list,
 * approvals and errors.
 */
import { mkdtempSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { z } from 'zod';
import { ScriptedModelProvider, defineTool } from '../../activities/index';
import { unwrap } from '../../agent/index';
import { WORKFLOW_TYPE } from '../../workflows/messages';
import { cli } from '../support/cli';
import { eventually, uniqueId, withWorker } from '../support/temporal';
import { useTestConnection } from '../support/test-connection';
import { startPtyChat } from './pty-chat';

const { t, taskQueue } = useTestConnection('cli-escapes');
const env = { LIVECONTEXT_TASK_QUEUE: taskQueue };

/** OSC 52 (clipboard), clear screen, cursor home and up, a C1 CSI, a carriage return, a bidi override. */
const HOSTILE = '\x1b]52;c;SGFja2Vk\x07\x1b[2J\x1b[H\x1b[3A\u009b2J\rX\u202eevil';
/** What a terminal would act on, and never gets from these texts (readline's own cursor moves aside). */
const OBEYED = ['\x1b]', '\x07', '\x1b[2J', '\x1b[H', '\x1b[3A', '\u009b', '\u202e', '\rX'];
const shown = (raw: string) => OBEYED.filter((s) => raw.includes(s));

const paint = defineTool({
  name: 'paint',
  description: 'Paints.',
  parameters: z.object({ color: z.string() }),
  needsApproval: true,
  execute: async ({ color }) => `painted ${color} ${HOSTILE}`,
});

const scripted = new ScriptedModelProvider({
  hostile: (req) => {
    const last = unwrap(req.messages[req.messages.length - 1]);
    if (last.kind === 'tool_results') return { text: `after${HOSTILE}` };
    const input = last.kind === 'model_input' ? last.sections[0].content : '';
    if (input === 'paint') return { text: `Hello${HOSTILE}`, toolCalls: [{ name: 'paint', args: { color: `red${HOSTILE}` } }] };
    return { text: `answer${HOSTILE}` };
  },
});

test('the chat on a terminal shows escape sequences from the model and tools as text, approval included', async () => {
  await withWorker({ taskQueue, models: [scripted], tools: [paint], workspaceRoot: mkdtempSync(path.join(tmpdir(), 'lc-esc-')) }, async () => {
    const agentId = uniqueId('hostile');
    await t.agents.start(agentId, { model: 'scripted:hostile' });
    const chat = startPtyChat(['chat', agentId], env);
    try {
      await chat.until((l) => l[l.length - 1] === 'you> ', 'the prompt', 60_000);
      chat.type('paint\r');
      await chat.until((l) => l.some((x) => x.includes('needs approval')), 'the approval request', 30_000);
      chat.type('/approve\r');
      await chat.until((l) => l.some((x) => x.startsWith('agent> after')) && l[l.length - 1] === 'you> ', 'the answer after the tool', 30_000);
      chat.type('/history\r');
      await chat.until((l) => l.some((x) => x.includes('paint Success')), 'the history', 30_000);
      chat.type('/quit\r');
      expect(await chat.exited).toBe(0);
    } finally {
      chat.kill();
    }

    expect(shown(chat.raw())).toEqual([]);
    const lines = chat.lines();
    const visible = '\\x1b]52;c;SGFja2Vk\\x07\\x1b[2J\\x1b[H\\x1b[3A\\x9b2J\\rX\\u202eevil';
    expect(lines).toEqual(expect.arrayContaining([`agent> Hello${visible}`, `agent> after${visible}`]));
    // Arguments are JSON text: its escapes (\u001b) stay as they are; what JSON leaves raw is escaped here.
    expect(lines.find((l) => l.includes('needs approval'))).toContain('red\\u001b]52;c;SGFja2Vk\\u0007\\u001b[2J\\u001b[H\\u001b[3A\\x9b2J\\rX\\u202eevil');
    expect(lines.find((l) => l.includes('✓ paint'))).toContain('painted red\\x1b]52;c;SGFja2Vk\\x07');
  });
}, 300_000);

test('send --wait, state, history, list, approvals and errors print outside text inert', async () => {
  await withWorker({ taskQueue, models: [scripted], tools: [paint], workspaceRoot: mkdtempSync(path.join(tmpdir(), 'lc-esc-')) }, async () => {
    // An agent whose id has control characters, as older gateways accepted (started below the client's checks).
    const agentId = `esc\x1b]52;c;aWQ=\x07\x1b[2J${uniqueId('-id')}`;
    await t.client.workflow.start(WORKFLOW_TYPE, { workflowId: agentId, taskQueue, args: [{ config: { model: 'scripted:hostile' } }] });

    const sent = await cli(['send', agentId, 'hi', '--wait'], { env });
    expect(sent).toMatchObject({ code: 0, stdout: `answer\\x1b]52;c;SGFja2Vk\\x07\\x1b[2J\\x1b[H\\x1b[3A\\x9b2J\\rX\\u202eevil\n` });

    await cli(['send', agentId, 'paint'], { env });
    const toolCallId = await eventually(async () => (await t.agents.state(agentId)).awaitingApproval[0]?.toolCallId, 30_000, 'the approval request');
    const outputs = [
      sent,
      ...(await Promise.all([
        cli(['state', agentId], { env }),
        cli(['state', agentId, '--json'], { env }),
        cli(['history', agentId], { env }),
        cli(['list'], { env }),
        cli(['list', '--json'], { env }),
      ])),
      await cli(['approve', agentId, toolCallId], { env }),
      await cli(['state', `${agentId}-missing`], { env }), // an error quoting the id
      await cli(['chat', agentId], { env, input: 'again\n/history\n' }), // the piped chat
    ];
    for (const o of outputs) {
      expect(shown(o.stdout + o.stderr)).toEqual([]);
      expect(o.stdout + o.stderr).not.toContain('\x1b');
    }
    const [, state, stateJson, history, list, listJson, approve, missing, chat] = outputs;
    const visibleId = agentId.replace('\x1b]52;c;aWQ=\x07\x1b[2J', '\\x1b]52;c;aWQ=\\x07\\x1b[2J');
    expect(state.stdout).toContain(visibleId);
    expect(state.stdout).toContain('paint');
    expect(JSON.parse(JSON.parse(stateJson.stdout).awaitingApproval[0].arguments)).toEqual({ color: `red${HOSTILE}` }); // JSON keeps the value
    expect(history.stdout).toContain('answer\\x1b]52;c;SGFja2Vk\\x07');
    expect(list.stdout).toContain(visibleId);
    expect(JSON.parse(listJson.stdout).map((a: { agentId: string }) => a.agentId)).toContain(agentId);
    expect(approve).toMatchObject({ code: 0 });
    expect(missing.stderr).toContain(`${visibleId}-missing`);
    expect(chat.stdout).toContain('after\\x1b]52;c;SGFja2Vk\\x07');
  });
}, 300_000);
