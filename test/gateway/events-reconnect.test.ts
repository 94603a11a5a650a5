/**
 * Reconnect: the gateway is a process (`livecontext serve`), SIGKILLed while a reader is in the middle of
 * a streaming message, then started again; the reader resumes with `Last-Event-ID`, and what it got
 * before and after equals what an uninterrupted reader got — nothing lost, nothing repeated. Compared
 * with the state events left out (they report what was polled when) and the text deltas of one message
 * joined (how the text was cut depends on when it was polled). The same for an AG-UI run (POST) against
 * the same run posted again once it was over. The agent continues as new after every step meanwhile.
 */
import { mkdtempSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { deployTool } from '../fixtures/test-tools';
import { startTestGateway, type TestGateway } from '../support/gateway';
import { startChildGateway } from '../support/child-gateway';
import { useProviderServers } from '../support/provider-servers';
import { type SseFrame, type SseRequest, collectSse, normalised, readSse } from '../support/sse-reader';
import { eventually, uniqueId, withWorker } from '../support/temporal';

const { t, p, taskQueue } = useProviderServers('events-reconnect', { each: true });
let steady: TestGateway;
beforeAll(async () => {
  steady = await startTestGateway(t.agents);
});
afterAll(async () => steady?.close());

const words = (n: number, w: string) => Array.from({ length: n }, (_, i) => `${w}${i}`).join(' ');

/**
 * Reads from a gateway process until `cut` says so, kills the process there (the reader then sees its
 * stream break), starts a new one on the same port and reads on from the last id received until `done`.
 */
async function readAcrossRestart(
  pathAndQuery: string,
  request: SseRequest,
  cut: (f: SseFrame, all: SseFrame[]) => boolean,
  done: (f: SseFrame) => boolean,
  opened: () => void,
) {
  let gateway = await startChildGateway(taskQueue, 0);
  const before: SseFrame[] = [];
  let killed = false;
  try {
    for await (const frame of readSse(gateway.url + pathAndQuery, request)) {
      before.push(frame);
      if (before.length === 1) opened();
      if (!killed && cut(frame, before)) {
        killed = true;
        await gateway.kill(); // SIGKILL: no goodbye; frames in flight may or may not arrive
      }
    }
  } catch {
    // the connection to the killed process broke
  }
  expect(killed).toBe(true);
  gateway = await startChildGateway(taskQueue, gateway.port);
  try {
    const lastId = before.at(-1)!.id!;
    const after = await collectSse(gateway.url + pathAndQuery, { ...request, headers: { ...request.headers, 'last-event-id': lastId } }, done);
    expect(after.error).toBeUndefined();
    return { before, after: after.frames };
  } finally {
    await gateway.kill();
  }
}

const isRunEnd = (f: SseFrame) => f.event.type === 'RUN_FINISHED';
/** Cut once the reader has some but not all of a streaming assistant message. */
const midMessage = (f: SseFrame, all: SseFrame[]) => {
  if (f.event.type !== 'TEXT_MESSAGE_CONTENT') return false;
  const start = all.find((x) => x.event.type === 'TEXT_MESSAGE_START' && x.event.role !== 'user' && x.event.messageId === f.event.messageId);
  return !!start && all.filter((x) => x.event.type === 'TEXT_MESSAGE_CONTENT' && x.event.messageId === f.event.messageId).length >= 3;
};

function script() {
  const intro = `Looking at the service first. ${words(30, 'look')}`;
  const answer = `Deployed, and here is what changed. ${words(20, 'change')}`;
  p.openai.enqueue(
    { kind: 'stream', text: intro, chunkDelayMs: 90, toolCalls: [{ id: 'call_deploy', name: 'deploy', arguments: '{"service":"api","env":"staging"}' }] },
    { kind: 'stream', text: answer, chunkDelayMs: 60 },
  );
  return { intro, answer };
}

test('the per-agent stream across a gateway killed mid-message: resumed with Last-Event-ID, it equals an uninterrupted one', async () => {
  const { intro, answer } = script();
  const agentId = uniqueId('reconnect');
  await withWorker({ taskQueue, models: p.models(), tools: [deployTool], workspaceRoot: mkdtempSync(path.join(tmpdir(), 'lc-reconnect-')) }, async () => {
    const started = await t.agents.start(agentId, { model: 'openai:gpt-4.1-mini', historyBudgetBytes: 1_000 });
    let openedReaders = 0;
    const uninterrupted = collectSse(`${steady.url}/agents/${agentId}/events?after=0`, {}, (f, all) => {
      if (all.length === 1) openedReaders++;
      return isRunEnd(f);
    });
    const interrupted = readAcrossRestart(`/agents/${agentId}/events?after=0`, {}, midMessage, isRunEnd, () => openedReaders++);
    await eventually(() => openedReaders === 2, 60_000, 'both readers to be open');
    await t.agents.send(agentId, 'deploy api to staging');

    const [whole, { before, after }] = await Promise.all([uninterrupted, interrupted]);
    expect(whole.error).toBeUndefined();
    expect(normalised([...before, ...after])).toEqual(normalised(whole.frames));

    // The cut was inside the streaming intro: its start before, its end after, and nothing of it twice.
    const introId = before.find((f) => f.event.type === 'TEXT_MESSAGE_START' && f.event.role === 'assistant')!.event.messageId;
    expect(before.some((f) => f.event.type === 'TEXT_MESSAGE_END' && f.event.messageId === introId)).toBe(false);
    expect(after.some((f) => f.event.type === 'TEXT_MESSAGE_START' && f.event.messageId === introId)).toBe(false);
    expect(after[0].event.type).toBe('STATE_SNAPSHOT'); // a resumed stream starts with a fresh snapshot
    const text = (frames: SseFrame[], id: string) =>
      frames
        .filter((f) => f.event.type === 'TEXT_MESSAGE_CONTENT' && f.event.messageId === id)
        .map((f) => f.event.delta)
        .join('');
    expect(text(before, introId) + text(after, introId)).toBe(intro);
    expect(normalised(whole.frames)).toContainEqual(expect.objectContaining({ type: 'TEXT_MESSAGE_CONTENT', delta: answer }));
    // It ran across continue-as-new: the agent is in a later run than it started in.
    expect((await t.agents.handle(agentId).describe()).runId).not.toBe(started.firstExecutionRunId);
  });
});

test('an AG-UI run across a gateway killed mid-message: the same POST with Last-Event-ID continues it without a second turn', async () => {
  const { intro } = script();
  const agentId = uniqueId('reconnect-run');
  await withWorker({ taskQueue, models: p.models(), tools: [deployTool], workspaceRoot: mkdtempSync(path.join(tmpdir(), 'lc-reconnect-')) }, async () => {
    await t.agents.start(agentId, { model: 'openai:gpt-4.1-mini', historyBudgetBytes: 1_000 });
    const run = { threadId: agentId, runId: uniqueId('run'), messages: [{ id: 'u1', role: 'user', content: 'deploy api to staging' }], tools: [], context: [] };
    const post: SseRequest = { method: 'POST', body: run };
    const { before, after } = await readAcrossRestart(`/agents/${agentId}/ag-ui`, post, midMessage, isRunEnd, () => undefined);
    expect(before[0].event).toMatchObject({ type: 'RUN_STARTED', runId: run.runId });
    expect(after.map((f) => f.event.type)).not.toContain('RUN_STARTED');
    expect(after.at(-1)!.event).toMatchObject({ type: 'RUN_FINISHED', runId: run.runId, result: { inputSeq: 1 } });

    // The same run posted again, now that it is over, replays it from history: what the run should have been.
    const replay = await collectSse(`${steady.url}/agents/${agentId}/ag-ui`, post, isRunEnd);
    expect(normalised([...before, ...after])).toEqual(normalised(replay.frames));
    expect(normalised(replay.frames)).toContainEqual(expect.objectContaining({ type: 'TEXT_MESSAGE_CONTENT', delta: intro }));
    // One input, one turn: the re-posts were recognised by their idempotency key.
    const status = await t.agents.state(agentId);
    expect(status.nextInputSeq).toBe(2);
    expect(p.openai.requests).toHaveLength(2);
  });
});
