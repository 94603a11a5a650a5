/**
 * GET /agents/:id/events, the per-agent AG-UI stream a dashboard follows: text streams while the model
 * call runs (deltas arrive before the turn ends), then tool calls, results and the answer, each turn a
 * run; `?after=0` replays the same events from history; a reset is announced and the stream goes on over
 * continue-as-new and the new history; a model call that fails for good ends the turn's run with
 * RUN_ERROR — the same for a reader on another gateway — and a retry starts a new run of the turn.
 */
import { mkdtempSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { parseCursor } from '../../gateway/events/cursor';
import { deployTool } from '../fixtures/test-tools';
import { startTestGateway, type TestGateway } from '../support/gateway';
import { useProviderServers } from '../support/provider-servers';
import { type SseFrame, collectSse, normalised } from '../support/sse-reader';
import { eventually, uniqueId, withWorker } from '../support/temporal';
import { TEXT_MESSAGE, TOOL_CALL } from '../fixtures/ag-ui-events';

const { t, p, taskQueue } = useProviderServers('events', { each: true });
let gateway: TestGateway;
let other: TestGateway;
beforeAll(async () => {
  gateway = await startTestGateway(t.agents);
  other = await startTestGateway(t.agents);
});
afterAll(async () => {
  await gateway?.close();
  await other?.close();
});

const words = (n: number, w: string) => Array.from({ length: n }, (_, i) => `${w}${i}`).join(' ');
const workspaceRoot = () => mkdtempSync(path.join(tmpdir(), 'lc-events-'));
const types = (frames: SseFrame[]) => frames.map((f) => f.event.type);
/** A reader of the agent's events on `g`, until `until` sees the frame it waits for. */
const follow = (g: TestGateway, agentId: string, until: (f: SseFrame, all: SseFrame[]) => boolean, query = '', headers: Record<string, string> = {}) =>
  collectSse(`${g.url}/agents/${agentId}/events${query}`, { headers }, until);
/** Waits until the stream's first frame (the state snapshot) arrived, so what follows is seen live. */
async function opened(frames: () => SseFrame[]) {
  for (let i = 0; i < 400 && frames().length === 0; i++) await new Promise((r) => setTimeout(r, 25));
}
/** Follows the agent's events on the gateway live (its first frame arrived) until `until`; `seen` is what came so far. */
async function followLive(agentId: string, until: (f: SseFrame) => boolean) {
  const seen: SseFrame[] = [];
  const live = follow(gateway, agentId, (f, all) => (seen.splice(0, seen.length, ...all), until(f)));
  await opened(() => seen);
  return { seen, live };
}
/** Waits until a reader has received a frame like this. */
const seenFrame = (seen: SseFrame[], like: (f: SseFrame) => boolean) => eventually(() => seen.some(like), 60_000, 'the reader to see it');

test('a turn streams as it happens; ?after=0 replays the same events from history', async () => {
  const intro = `Checking first. ${words(25, 'step')}`;
  const answer = `Deployed to staging. ${words(10, 'fin')}`;
  p.openai.enqueue(
    { kind: 'stream', text: intro, chunkDelayMs: 80, toolCalls: [{ id: 'call_1', name: 'deploy', arguments: '{"service":"web","env":"staging"}' }] },
    { kind: 'stream', text: answer, chunkDelayMs: 40 },
  );
  const agentId = uniqueId('ev-turn');
  await withWorker({ taskQueue, models: p.models(), tools: [deployTool], workspaceRoot: workspaceRoot() }, async () => {
    await t.agents.start(agentId, { model: 'openai:gpt-4.1-mini' });
    const { live } = await followLive(agentId, (f) => f.event.type === 'RUN_FINISHED');
    expect(await gateway.request('POST', `/agents/${agentId}/input`, { text: 'deploy web' })).toMatchObject({ status: 202 });
    const { frames, error } = await live;
    expect(error).toBeUndefined();

    expect(frames[0].event).toMatchObject({
      type: 'STATE_SNAPSHOT',
      snapshot: { runState: 'WaitingInput', blockedOn: 'input', awaitingApproval: [], lastError: null, notebook: '', tasks: [] },
    });
    expect(normalised(frames).map((e) => (e as { type: string }).type)).toEqual([
      'RUN_STARTED',
      ...TEXT_MESSAGE,
      ...TEXT_MESSAGE,
      ...TOOL_CALL,
      'TOOL_CALL_RESULT',
      ...TEXT_MESSAGE,
      'RUN_FINISHED',
    ]);
    const events = frames.map((f) => f.event);
    expect(events.find((e) => e.type === 'RUN_STARTED')).toEqual({ type: 'RUN_STARTED', threadId: agentId, runId: 'turn-1' });
    expect(events.find((e) => e.type === 'TEXT_MESSAGE_START')).toEqual({ type: 'TEXT_MESSAGE_START', messageId: 'in-1', role: 'user' });
    expect(events.find((e) => e.type === 'TOOL_CALL_RESULT')).toMatchObject({ toolCallId: 'call_1', content: 'deployed web to staging', role: 'tool' });

    // The intro streamed: many deltas, the first well before its message ended (the output was recorded).
    const introId = events.find((e) => e.type === 'TEXT_MESSAGE_START' && e.role === 'assistant').messageId;
    const deltas = frames.filter((f) => f.event.type === 'TEXT_MESSAGE_CONTENT' && f.event.messageId === introId);
    const end = frames.find((f) => f.event.type === 'TEXT_MESSAGE_END' && f.event.messageId === introId)!;
    expect(deltas.length).toBeGreaterThanOrEqual(4);
    expect(end.at - deltas[0].at).toBeGreaterThan(800);
    expect(deltas.map((f) => f.event.delta).join('')).toBe(intro);
    // Every frame has a cursor for its id; state events repeat the cursor of the event before them.
    for (const f of frames) expect(parseCursor(f.id!)).not.toBeNull();
    // The state showed the turn working, and the usage of both model calls at the end.
    expect(
      frames.some(
        (f) => f.event.type === 'STATE_DELTA' && f.event.delta.some((op: { path: string; value: unknown }) => op.path === '/blockedOn' && op.value === null),
      ),
    ).toBe(true);

    // A dashboard opened later replays the turn from history: the same events, under the same ids.
    const replay = await follow(other, agentId, (f) => f.event.type === 'RUN_FINISHED', '?after=0');
    expect(normalised(replay.frames)).toEqual(normalised(frames));
    expect(replay.frames.filter((f) => f.event.type === 'TEXT_MESSAGE_CONTENT' && f.event.messageId === introId)).toHaveLength(1);
  });
});

test('across continue-as-new and a reset: the reset is announced, the stream goes on over the new history', async () => {
  p.openai.enqueue({ kind: 'stream', text: 'first answer' }, { kind: 'stream', text: 'second answer' });
  const agentId = uniqueId('ev-reset');
  await withWorker({ taskQueue, models: p.models(), workspaceRoot: workspaceRoot() }, async () => {
    // A tiny history budget: the agent continues as new after every step.
    const started = await t.agents.start(agentId, { model: 'openai:gpt-4.1-mini', historyBudgetBytes: 1_000 });
    const seen: SseFrame[] = [];
    let finished = 0;
    const live = follow(gateway, agentId, (f, all) => (seen.splice(0, seen.length, ...all), f.event.type === 'RUN_FINISHED' && ++finished === 2));
    await opened(() => seen);
    // A dashboard that follows: the reset comes after it saw turn 1, turn 2 after it saw the reset (one that
    // looks only after the history regrew sees just the new history: the cursor cannot tell it more).
    await t.agents.ask(agentId, 'one');
    await seenFrame(seen, (f) => f.event.type === 'RUN_FINISHED');
    expect((await t.agents.handle(agentId).describe()).runId).not.toBe(started.firstExecutionRunId); // it continued as new
    expect(await gateway.request('POST', `/agents/${agentId}/reset`)).toMatchObject({ status: 200 });
    await seenFrame(seen, (f) => f.event.type === 'CUSTOM');
    await t.agents.ask(agentId, 'two');
    const { frames } = await live;

    const shape = normalised(frames).map((e) => {
      const ev = e as { type: string; runId?: string; name?: string; messageId?: string; delta?: string };
      return [ev.type, ev.runId ?? ev.name ?? ev.messageId ?? '', ev.delta ?? ''].join(' ').trim();
    });
    /** One turn's frames: its run, the input (each history starts at input 1 again) and the answer. */
    const turn = (n: number, input: string, answer: string) => [
      `RUN_STARTED turn-${n}`,
      'TEXT_MESSAGE_START in-1',
      `TEXT_MESSAGE_CONTENT in-1 ${input}`,
      'TEXT_MESSAGE_END in-1',
      expect.stringMatching(/^TEXT_MESSAGE_START out-1-/),
      expect.stringMatching(new RegExp(`^TEXT_MESSAGE_CONTENT out-1-\\S+ ${answer}$`)),
      expect.stringMatching(/^TEXT_MESSAGE_END out-1-/),
      `RUN_FINISHED turn-${n}`,
    ];
    expect(shape).toEqual([...turn(1, 'one', 'first answer'), 'CUSTOM livecontext.reset', ...turn(2, 'two', 'second answer')]);
    // A fresh snapshot follows the reset: of the new history only (turn 2 may have run meanwhile).
    const reset = types(frames).indexOf('CUSTOM');
    expect(frames[reset + 1].event).toMatchObject({ type: 'STATE_SNAPSHOT' });
    expect(frames[reset + 1].event.snapshot.usage.modelCalls).toBeLessThanOrEqual(1);
  });
});

test('a model call failing for good ends the run with RUN_ERROR on every gateway; a retry starts a new run of the turn', async () => {
  p.openai.enqueue({ kind: 'error', status: 401 }, { kind: 'stream', text: 'recovered' }, { kind: 'stream', text: 'and the second' });
  const agentId = uniqueId('ev-error');
  await withWorker({ taskQueue, models: p.models(), workspaceRoot: workspaceRoot() }, async () => {
    await t.agents.start(agentId, { model: 'openai:gpt-4.1-mini' });
    const seenHere: SseFrame[] = [];
    const seenThere: SseFrame[] = [];
    const untilError = (seen: SseFrame[]) => (f: SseFrame, all: SseFrame[]) => (seen.splice(0, seen.length, ...all), f.event.type === 'RUN_ERROR');
    const here = follow(gateway, agentId, untilError(seenHere));
    const there = follow(other, agentId, untilError(seenThere));
    await opened(() => seenHere);
    await opened(() => seenThere);
    await t.agents.send(agentId, 'hello');
    const [a, b] = await Promise.all([here, there]);
    expect(types(a.frames).filter((x) => !x.startsWith('STATE'))).toEqual(['RUN_STARTED', ...TEXT_MESSAGE, 'RUN_ERROR']);
    expect(a.frames.at(-1)!.event).toMatchObject({ type: 'RUN_ERROR', code: 'ModelError.Authentication' });
    expect(normalised(b.frames)).toEqual(normalised(a.frames));
    const blocked = a.frames.filter((f) => f.event.type === 'STATE_DELTA').flatMap((f) => f.event.delta);
    expect(blocked).toContainEqual(expect.objectContaining({ path: '/blockedOn', value: 'error' }));

    // An AG-UI run posted to the blocked agent: started, then RUN_ERROR at once (its input waits behind the error).
    const run = { threadId: agentId, runId: uniqueId('r'), messages: [{ id: 'u2', role: 'user', content: 'second' }], tools: [], context: [] };
    const posted = await collectSse(`${gateway.url}/ag-ui`, { method: 'POST', body: run }, () => false);
    expect(types(posted.frames)).toEqual(['RUN_STARTED', 'STATE_SNAPSHOT', 'RUN_ERROR']);
    expect(posted.frames[2].event).toMatchObject({ code: 'ModelError.Authentication' });

    // Resumed from its last id after the error: the stream goes on; the retry is a new run of turn 1.
    let finished = 0;
    const resumed = follow(gateway, agentId, (f) => f.event.type === 'RUN_FINISHED' && ++finished === 2, '', { 'last-event-id': a.frames.at(-1)!.id! });
    expect(await gateway.request('POST', `/agents/${agentId}/retry`)).toMatchObject({ status: 202 });
    const { frames } = await resumed;
    const runs = frames.map((f) => f.event).filter((e) => e.type.startsWith('RUN_'));
    expect(runs.map((e) => [e.type, e.runId])).toEqual([
      ['RUN_STARTED', 'turn-1.r2'],
      ['RUN_FINISHED', 'turn-1.r2'],
      ['RUN_STARTED', 'turn-2'],
      ['RUN_FINISHED', 'turn-2'],
    ]);
    expect(frames[0].event.type).toBe('STATE_SNAPSHOT'); // no second RUN_ERROR, no repeated events
    expect(
      normalised(frames)
        .filter((e) => (e as { type: string }).type === 'TEXT_MESSAGE_CONTENT')
        .map((e) => (e as { delta: string }).delta),
    ).toEqual(['recovered', 'second', 'and the second']);
  });
});

test('an interrupted turn: its streaming text ends and its run finishes, cancelled, in the AG-UI run and the per-agent stream', async () => {
  p.openai.enqueue({ kind: 'stream', text: words(60, 'slow'), chunkDelayMs: 120 });
  const agentId = uniqueId('ev-interrupt');
  await withWorker({ taskQueue, models: p.models(), workspaceRoot: workspaceRoot() }, async () => {
    await t.agents.start(agentId, { model: 'openai:gpt-4.1-mini' });
    const { seen, live } = await followLive(agentId, (f) => f.event.type === 'RUN_FINISHED');
    const run = { threadId: agentId, runId: uniqueId('r'), messages: [{ id: 'u1', role: 'user', content: 'talk slowly' }], tools: [], context: [] };
    const posted = collectSse(`${gateway.url}/ag-ui`, { method: 'POST', body: run }, (f) => f.event.type === 'RUN_FINISHED');
    await seenFrame(seen, (f) => f.event.type === 'TEXT_MESSAGE_CONTENT' && f.event.messageId.startsWith('out-'));
    await expect(t.agents.interrupt(agentId, 'tester')).resolves.toMatchObject({ interrupted: true });

    const { frames } = await live;
    const ended = { type: 'RUN_FINISHED', outcome: { type: 'cancelled' }, result: { ended: 'interrupted', by: 'tester' } };
    expect(normalised(frames).slice(-2)).toEqual([
      { type: 'TEXT_MESSAGE_END', messageId: expect.stringMatching(/^out-/) },
      { ...ended, threadId: agentId, runId: 'turn-1' },
    ]);
    const mine = await posted;
    expect(normalised(mine.frames).map((e) => (e as { type: string }).type)).toEqual(['RUN_STARTED', ...TEXT_MESSAGE, 'RUN_FINISHED']);
    expect(mine.frames.at(-1)!.event).toMatchObject({ ...ended, runId: run.runId, result: { inputSeq: 1 } });
  });
});

test('an agent stopped mid-turn: the AG-UI run and the turn in the per-agent stream end with RUN_ERROR STOPPED', async () => {
  p.openai.enqueue({
    kind: 'stream',
    text: words(20, 'going'),
    chunkDelayMs: 100,
    toolCalls: [{ id: 'call_never', name: 'deploy', arguments: '{"service":"x","env":"staging"}' }],
  });
  const agentId = uniqueId('ev-stop');
  await withWorker({ taskQueue, models: p.models(), tools: [deployTool], workspaceRoot: workspaceRoot() }, async () => {
    await t.agents.start(agentId, { model: 'openai:gpt-4.1-mini' });
    const { seen, live } = await followLive(agentId, (f) => f.event.type === 'RUN_ERROR');
    const run = { threadId: agentId, runId: uniqueId('r'), messages: [{ id: 'u1', role: 'user', content: 'deploy x' }], tools: [], context: [] };
    const posted = collectSse(`${gateway.url}/ag-ui`, { method: 'POST', body: run }, () => false);
    await seenFrame(seen, (f) => f.event.type === 'TEXT_MESSAGE_CONTENT' && f.event.messageId.startsWith('out-'));
    expect(await gateway.request('POST', `/agents/${agentId}/stop`, { reason: 'maintenance' })).toMatchObject({ status: 202 });

    const { frames } = await live;
    expect(frames.at(-1)!.event).toMatchObject({ type: 'RUN_ERROR', code: 'STOPPED' });
    expect(types(frames)).toContain('TOOL_CALL_END'); // the step in flight finished first
    const mine = await posted;
    expect(mine.error).toBeUndefined();
    expect(mine.frames.at(-1)!.event).toMatchObject({ type: 'RUN_ERROR', code: 'STOPPED' });
  });
});
