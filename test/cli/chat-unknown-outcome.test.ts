/**
 * The console chat, on a real terminal, when the agent waits on a tool call whose outcome is unknown
 * (issue 29; its worker was killed right after the call charged a card, test/support/unknown-outcome.ts):
 * the chat says so — live when it happens while attached, or on attaching — with the command that
 * resolves it, and `/resolve [id] --done TEXT | --failed TEXT | --retry` moves the agent on with that result.
 */
import { useTestConnection } from '../support/test-connection';
import { useUnknownOutcomes } from '../support/unknown-outcome';
import { type PtyChat, startPtyChat } from './pty-chat';

const { t, taskQueue } = useTestConnection('chat-unknown');
const { service, agentWaitingOnUnknown, chargeResult } = useUnknownOutcomes(t, taskQueue);
const env = { LIVECONTEXT_TASK_QUEUE: taskQueue };

const notice = (toolCallId: string) =>
  `  ! charge {"cents":250}: outcome unknown (attempt 1 of charge started and never reported (its worker died or it timed out)): /resolve ${toolCallId} --done TEXT | --failed TEXT | --retry`;

async function attach(agentId: string): Promise<PtyChat> {
  const chat = startPtyChat(['chat', agentId], env);
  await chat.until((l) => l.some((x) => x.startsWith('Attached to agent')) && l[l.length - 1] === 'you> ', 'the chat to attach and prompt', 60_000);
  return chat;
}

/** The screen's lines from the last one starting with `marker` on. */
function from(lines: string[], marker: string): string[] {
  for (let i = lines.length - 1; i >= 0; i--) if (lines[i].startsWith(marker)) return lines.slice(i);
  return [];
}

async function quit(chat: PtyChat) {
  chat.type('/quit\r');
  expect(await chat.exited).toBe(0);
}

test('attached while it happens: the chat says the call waits on its unknown outcome; /resolve --done moves the agent on', async () => {
  let chat: PtyChat | undefined;
  try {
    const { agentId, inputSeq, key, unknown } = await agentWaitingOnUnknown({ started: async (id) => void (chat = await attach(id)) });
    await chat!.until((l) => l.includes(notice(unknown.toolCallId)) && l[l.length - 1] === 'you> ', 'the notice of the unknown outcome', 60_000);

    chat!.type('/resolve\r'); // no option: says what to give, resolves nothing
    await chat!.until((l) => l.some((x) => x.startsWith('Say what happened: /resolve [id] --done TEXT')), 'the usage');
    chat!.type('/resolve --done the statement shows one charge\r');
    await chat!.until((l) => l[l.length - 1] === 'you> ' && l.includes('agent> done'), 'the answer after /resolve');
    expect(from(chat!.lines(), 'you> /resolve --done')).toEqual([
      'you> /resolve --done the statement shows one charge',
      `Resolved ${unknown.toolCallId}: done.`,
      '    ✓ charge: the statement shows one charge',
      'agent> done',
      'you> ',
    ]);
    await expect(t.agents.waitForAnswer(agentId, inputSeq)).resolves.toMatchObject({ status: 'answered' });
    expect(await chargeResult(agentId)).toMatchObject({
      status: 'Success',
      result: 'the statement shows one charge',
      metadata: { resolved: 'done', resolved_by: 'chat' },
    });
    expect(service.effects.get(key)).toBe(1);
    await quit(chat!);
  } finally {
    chat?.kill();
  }
}, 240_000);

test('attached after: the chat says so on attaching; /resolve ID --failed TEXT records a failed call', async () => {
  const { agentId, inputSeq, unknown } = await agentWaitingOnUnknown();
  const chat = await attach(agentId);
  try {
    expect(chat.lines()).toContain(notice(unknown.toolCallId));
    expect(chat.lines().find((l) => l.startsWith('Attached to agent'))).toContain('waiting for a resolution');
    chat.type(`/resolve ${unknown.toolCallId} --failed no charge on the statement\r`);
    await chat.until((l) => l[l.length - 1] === 'you> ' && l.includes('agent> done'), 'the answer after /resolve');
    expect(chat.lines()).toContain(`Resolved ${unknown.toolCallId}: failed.`);
    await expect(t.agents.waitForAnswer(agentId, inputSeq)).resolves.toMatchObject({ status: 'answered' });
    expect(await chargeResult(agentId)).toMatchObject({
      status: 'Failed',
      result: expect.stringContaining('no charge on the statement'),
      metadata: { resolved: 'failed', resolved_by: 'chat' },
    });

    chat.type(`/resolve ${unknown.toolCallId} --retry\r`); // resolved already: the agent says so
    const refusal = `(error: Tool call ${unknown.toolCallId} was already resolved (failed; its result is recorded).)`;
    await chat.until((l) => l.includes(refusal), 'the refusal');
    await quit(chat);
  } finally {
    chat.kill();
  }
}, 240_000);
