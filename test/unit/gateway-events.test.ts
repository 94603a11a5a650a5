/**
 * The AG-UI events derived from history and partial output (gateway/events): turns as runs, streamed text
 * continued or replaced by the recorded output, failed batches, errors, and the cursor rule — a stream
 * resumed from any event's cursor sends exactly the events an uninterrupted one sends after it.
 */
import { EventType, type AGUIEvent } from '@ag-ui/core';
import { EventSchema } from '@ag-ui/core/schemas';
import { verifyEvents } from '@ag-ui/client';
import { applyPatch } from 'fast-json-patch';
import fc from 'fast-check';
import { from } from 'rxjs';
import type { PartialOutput } from '../../activities/call-model';
import type { HistoryEntry, ModelOutputEntry } from '../../agent/index';
import { type Cursor, cursorAt, formatCursor, parseCursor } from '../../gateway/events/cursor';
import { type StreamMode, blockedEvents, deriveEvents, openTurn } from '../../gateway/events/derive-events';
import { type Json, jsonPatch } from '../../gateway/events/json-patch';
import { TEXT_MESSAGE, TOOL_CALL } from '../fixtures/ag-ui-events';

const ts = '2025-01-01T00:00:00.000Z';
const invocation = { providerId: 'openai', specification: 'openai-chat-completions', model: 'gpt' };
const input = (seq: number, inputSeq: number, text: string): HistoryEntry => ({
  kind: 'model_input',
  seq,
  timestamp: ts,
  inputSeq,
  sections: [{ title: 'Input', content: text }],
});
const output = (seq: number, text: string, calls: Array<[string, string]> = [], by = { call: '1', attempt: 1 }): ModelOutputEntry => ({
  kind: 'model_output',
  seq,
  timestamp: ts,
  contents: text ? [text] : [],
  toolCalls: calls.map(([id, args]) => ({ toolCallId: id, toolName: 'deploy', rawArguments: args })),
  invocation,
  metadata: { call_id: by.call, attempts: by.attempt },
});
const results = (seq: number, ids: string[]): HistoryEntry => ({
  kind: 'tool_results',
  seq,
  timestamp: ts,
  results: ids.map((id) => ({ toolCallId: id, toolName: 'deploy', status: 'Success' as const, result: `done ${id}` })),
});
const partial = (text: string, o: { call?: string; attempt?: number; tail?: number } = {}): PartialOutput => ({
  attempt: o.attempt ?? 1,
  model: 'openai:gpt',
  text: o.tail !== undefined ? text.slice(-o.tail) : text,
  textChars: text.length,
  callId: o.call ?? '1',
  thinking: '',
  toolCalls: [],
});

const agent: StreamMode = { kind: 'agent', threadId: 'a1' };
const types = (events: Array<{ event: AGUIEvent }>) => events.map((e) => e.event.type);
/** Text of each message, joined from its deltas. */
function texts(events: Array<{ event: AGUIEvent }>): Record<string, string> {
  const out: Record<string, string> = {};
  for (const { event } of events) if (event.type === EventType.TEXT_MESSAGE_CONTENT) out[event.messageId] = (out[event.messageId] ?? '') + event.delta;
  return out;
}

test('the cursor round-trips, escapes its free-text fields and refuses what is not one', () => {
  const cursors: Cursor[] = [
    cursorAt(0),
    { seq: 12, part: 3 },
    { seq: 7, part: 0, streaming: { baseSeq: 6, callId: 'a~b/c d', attempt: 2, offset: 40 } },
    { seq: 7, part: 1, streaming: { baseSeq: 6, callId: '', attempt: 1, offset: 0 }, run: { runId: 'turn-3.r2', errored: true } },
    { seq: 9, part: 0, run: { runId: 'run', errored: false } },
  ];
  for (const c of cursors) expect(parseCursor(formatCursor(c))).toEqual(c);
  expect(formatCursor({ seq: 7, part: 0, streaming: { baseSeq: 6, callId: '5', attempt: 1, offset: 9 } })).toBe('7~6~5~1~9');
  for (const bad of ['', 'x', '-1', '3~', '3~1~2~3', '3~a~1~1~1', '3~tturn-1~x~y', '1.2.3']) expect(parseCursor(bad)).toBeNull();
});

test('a turn in the per-agent stream: run, user message, text, tool calls, results, answer', () => {
  const entries = [
    input(1, 1, 'deploy both'),
    output(2, 'Deploying.', [
      ['c1', '{"env":"staging"}'],
      ['c2', '{"env":"prod"}'],
    ]),
    results(3, ['c1', 'c2']),
    output(4, 'All done.', [], { call: '2', attempt: 1 }),
  ];
  const r = deriveEvents({ mode: agent, cursor: cursorAt(0), entries });
  expect(types(r.emitted)).toEqual([
    'RUN_STARTED',
    ...TEXT_MESSAGE,
    ...TEXT_MESSAGE,
    ...TOOL_CALL,
    ...TOOL_CALL,
    'TOOL_CALL_RESULT',
    'TOOL_CALL_RESULT',
    ...TEXT_MESSAGE,
    'RUN_FINISHED',
  ]);
  expect(r.emitted[0].event).toEqual({ type: 'RUN_STARTED', threadId: 'a1', runId: 'turn-1' });
  expect(r.emitted[1].event).toEqual({ type: 'TEXT_MESSAGE_START', messageId: 'in-1', role: 'user' });
  expect(r.emitted[7].event).toEqual({ type: 'TOOL_CALL_START', toolCallId: 'c1', toolCallName: 'deploy', parentMessageId: 'out-1-1-1' });
  expect(r.emitted[13].event).toEqual({ type: 'TOOL_CALL_RESULT', messageId: 'res-3-0', toolCallId: 'c1', content: 'done c1', role: 'tool' });
  expect(r.emitted.at(-1)!.event).toEqual({ type: 'RUN_FINISHED', threadId: 'a1', runId: 'turn-1' });
  expect(texts(r.emitted)).toEqual({ 'in-1': 'deploy both', 'out-1-1-1': 'Deploying.', 'out-3-2-1': 'All done.' });
  expect(r.cursor).toEqual(cursorAt(4));
  for (const { event } of r.emitted) expect(EventSchema.safeParse(event).success).toBe(true);
});

test('streamed text is continued by its entry: the deltas join to the final text, under one message id', () => {
  const final = 'The quick brown fox jumps over the lazy dog.';
  let c = deriveEvents({ mode: agent, cursor: cursorAt(0), entries: [input(1, 1, 'go')] }).cursor;
  const all = [];
  for (const n of [4, 15, 15, 30]) {
    const r = deriveEvents({ mode: agent, cursor: c, entries: [], partial: partial(final.slice(0, n)) });
    all.push(...r.emitted);
    c = r.cursor;
  }
  expect(formatCursor(c)).toBe('1~1~1~1~30~tturn-1');
  const r = deriveEvents({ mode: agent, cursor: c, entries: [output(2, final)] });
  all.push(...r.emitted);
  expect(types(all)).toEqual([
    'TEXT_MESSAGE_START',
    'TEXT_MESSAGE_CONTENT',
    'TEXT_MESSAGE_CONTENT',
    'TEXT_MESSAGE_CONTENT',
    'TEXT_MESSAGE_CONTENT',
    'TEXT_MESSAGE_END',
    'RUN_FINISHED',
  ]);
  expect(texts(all)).toEqual({ 'out-1-1-1': final });
});

test('a partial holding only the tail of a long text sends no delta before its start; the entry sends the rest', () => {
  const final = 'x'.repeat(100) + 'y'.repeat(50);
  let c = deriveEvents({ mode: agent, cursor: cursorAt(1), entries: [], partial: partial(final.slice(0, 20)) }).cursor;
  expect(c.streaming?.offset).toBe(20);
  // The text grew past what the tail keeps: from offset 20 nothing is known until the entry.
  const gap = deriveEvents({ mode: agent, cursor: c, entries: [], partial: partial(final.slice(0, 120), { tail: 60 }) });
  expect(gap.emitted).toEqual([]);
  c = gap.cursor;
  const end = deriveEvents({ mode: agent, cursor: c, entries: [output(2, final)] });
  expect(end.emitted[0].event).toMatchObject({ type: 'TEXT_MESSAGE_CONTENT', delta: final.slice(20) });
  // A tail that does cover the offset continues it.
  const covered = deriveEvents({ mode: agent, cursor: c, entries: [], partial: partial(final.slice(0, 70), { tail: 60 }) });
  expect(covered.emitted.map((e) => e.event)).toEqual([{ type: 'TEXT_MESSAGE_CONTENT', messageId: 'out-1-1-1', delta: final.slice(20, 70) }]);
});

test('a retried attempt ends the stale message and streams anew; an output of another call (fallback) replaces the stream', () => {
  const c0 = { ...cursorAt(1), run: { runId: 'turn-1', errored: false } };
  const a1 = deriveEvents({ mode: agent, cursor: c0, entries: [], partial: partial('stale text') });
  const a2 = deriveEvents({ mode: agent, cursor: a1.cursor, entries: [], partial: partial('fresh', { attempt: 2 }) });
  expect(a2.emitted.map((e) => e.event)).toEqual([
    { type: 'TEXT_MESSAGE_END', messageId: 'out-1-1-1' },
    { type: 'TEXT_MESSAGE_START', messageId: 'out-1-1-2', role: 'assistant' },
    { type: 'TEXT_MESSAGE_CONTENT', messageId: 'out-1-1-2', delta: 'fresh' },
  ]);
  const done = deriveEvents({ mode: agent, cursor: a2.cursor, entries: [output(2, 'fresh answer', [], { call: '1', attempt: 2 })] });
  expect(done.emitted.map((e) => e.event)).toEqual([
    { type: 'TEXT_MESSAGE_CONTENT', messageId: 'out-1-1-2', delta: ' answer' },
    { type: 'TEXT_MESSAGE_END', messageId: 'out-1-1-2' },
    { type: 'RUN_FINISHED', threadId: 'a1', runId: 'turn-1' },
  ]);
  const fallback = deriveEvents({ mode: agent, cursor: a1.cursor, entries: [output(2, 'from the fallback', [], { call: '2', attempt: 1 })] });
  expect(types(fallback.emitted)).toEqual(['TEXT_MESSAGE_END', ...TEXT_MESSAGE, 'RUN_FINISHED']);
  expect(texts(fallback.emitted)).toEqual({ 'out-1-2-1': 'from the fallback' });
});

test('a batch that could not run fails each of its calls; without its output in view, the batch is passed in', () => {
  const failed: HistoryEntry = { kind: 'tool_results', seq: 3, timestamp: ts, results: [], executeError: 'worker lost' };
  const run = { run: { runId: 'turn-1', errored: false } };
  const r = deriveEvents({
    mode: agent,
    cursor: { ...cursorAt(2), ...run },
    entries: [failed],
    batch: output(2, '', [
      ['c1', '{}'],
      ['c2', '{}'],
    ]).toolCalls,
  });
  expect(r.emitted.map((e) => e.event)).toEqual([
    { type: 'TOOL_CALL_RESULT', messageId: 'res-3-0', toolCallId: 'c1', content: 'Failed: worker lost', role: 'tool' },
    { type: 'TOOL_CALL_RESULT', messageId: 'res-3-1', toolCallId: 'c2', content: 'Failed: worker lost', role: 'tool' },
  ]);
  const inView = deriveEvents({ mode: agent, cursor: { ...cursorAt(1), ...run }, entries: [output(2, '', [['c9', '{}']]), failed] });
  expect(inView.emitted.filter((e) => e.event.type === 'TOOL_CALL_RESULT').map((e) => e.event)).toEqual([
    expect.objectContaining({ toolCallId: 'c9', content: 'Failed: worker lost' }),
  ]);
});

test('an error ends the open run once; what the retry does belongs to a new run of the same turn', () => {
  const streaming = deriveEvents({
    mode: agent,
    cursor: deriveEvents({ mode: agent, cursor: cursorAt(0), entries: [input(1, 4, 'hi')] }).cursor,
    entries: [],
    partial: partial('part'),
  });
  const err = blockedEvents(agent, streaming.cursor, { message: 'boom', code: 'ModelError.Server' });
  expect(err.emitted.map((e) => e.event)).toEqual([
    { type: 'TEXT_MESSAGE_END', messageId: 'out-1-1-1' },
    { type: 'RUN_ERROR', message: 'boom', code: 'ModelError.Server' },
  ]);
  expect(formatCursor(err.cursor)).toBe('1~tturn-4~x');
  expect(blockedEvents(agent, err.cursor, { message: 'boom', code: 'X' }).emitted).toEqual([]);
  const after = deriveEvents({ mode: agent, cursor: err.cursor, entries: [output(2, 'ok', [], { call: '2', attempt: 1 })] });
  expect(after.emitted.map((e) => e.event)).toEqual([
    { type: 'RUN_STARTED', threadId: 'a1', runId: 'turn-4.r2' },
    { type: 'TEXT_MESSAGE_START', messageId: 'out-1-2-1', role: 'assistant' },
    { type: 'TEXT_MESSAGE_CONTENT', messageId: 'out-1-2-1', delta: 'ok' },
    { type: 'TEXT_MESSAGE_END', messageId: 'out-1-2-1' },
    { type: 'RUN_FINISHED', threadId: 'a1', runId: 'turn-4.r2' },
  ]);
});

test("an AG-UI run: earlier turns are skipped, its own input not echoed, it ends at its answer; a client's verifier accepts it", async () => {
  const mode: StreamMode = { kind: 'run', threadId: 't', inputSeq: 2 };
  const entries = [
    output(3, 'previous turn'),
    input(4, 2, 'mine'),
    output(5, 'thinking', [['c1', '{}']]),
    results(6, ['c1']),
    output(7, 'answer'),
    input(8, 3, 'next'),
  ];
  const before = deriveEvents({ mode, cursor: cursorAt(2), entries: entries.slice(0, 1), partial: partial('previous turn streaming') });
  expect(before.emitted).toEqual([]);
  expect(before.cursor).toEqual(cursorAt(3));
  const r = deriveEvents({ mode, cursor: before.cursor, entries: entries.slice(1) });
  expect(r.answeredSeq).toBe(7);
  expect(r.cursor.seq).toBe(7);
  expect(types(r.emitted)).toEqual([...TEXT_MESSAGE, ...TOOL_CALL, 'TOOL_CALL_RESULT', ...TEXT_MESSAGE]);
  const stream = [
    { type: EventType.RUN_STARTED, threadId: 't', runId: 'r' },
    ...r.emitted.map((e) => e.event),
    { type: EventType.RUN_FINISHED, threadId: 't', runId: 'r' },
  ];
  // @ag-ui/client's own check of event order (the one HttpAgent applies); it has its own copy of rxjs.
  const verified = await new Promise<number>((resolve, reject) => {
    let n = 0;
    verifyEvents()(from(stream) as never).subscribe({ next: () => n++, error: reject, complete: () => resolve(n) });
  });
  expect(verified).toBe(stream.length);
  // An input that never started a turn (dropped as blank): the next turn is not streamed into the run.
  expect(deriveEvents({ mode, cursor: cursorAt(2), entries: [input(4, 3, 'later')] })).toMatchObject({ otherTurn: true, emitted: [] });
});

test('a turn that ends without an answer (interrupted, or the model asked the user) ends its run', () => {
  const interrupted: HistoryEntry = { kind: 'turn_end', seq: 2, timestamp: ts, reason: 'interrupted', by: 'ops' };
  const streaming = deriveEvents({
    mode: agent,
    cursor: { ...cursorAt(1), run: { runId: 'turn-1', errored: false } },
    entries: [],
    partial: partial('half of'),
  });
  const r = deriveEvents({ mode: agent, cursor: streaming.cursor, entries: [interrupted] });
  expect(r.emitted.map((e) => e.event)).toEqual([
    { type: 'TEXT_MESSAGE_END', messageId: 'out-1-1-1' },
    { type: 'RUN_FINISHED', threadId: 'a1', runId: 'turn-1', outcome: { type: 'cancelled' }, result: { ended: 'interrupted', by: 'ops' } },
  ]);
  expect(r.cursor).toEqual(cursorAt(2));
  const asked: HistoryEntry = { kind: 'turn_end', seq: 4, timestamp: ts, reason: 'ask_user', question: 'Which env?' };
  const run = deriveEvents({
    mode: { kind: 'run', threadId: 't', inputSeq: 1 },
    cursor: cursorAt(0),
    entries: [input(1, 1, 'go'), output(2, '', [['q', '{"question":"Which env?"}']]), results(3, ['q']), asked, input(5, 2, 'prod')],
  });
  expect(run).toMatchObject({ answeredSeq: 4, turnEnd: asked });
  expect(openTurn([input(1, 1, 'go'), asked])).toBeNull();
});

test('whether a turn is open at the end of a window of history', () => {
  expect(openTurn([input(1, 1, 'a'), output(2, 'x', [['c', '{}']])])).toEqual({ inputSeq: 1, seq: 1 });
  expect(openTurn([input(1, 1, 'a'), output(2, 'x')])).toBeNull();
  expect(openTurn([])).toBe('unknown');
  expect(openTurn([results(5, ['c'])])).toBe('unknown');
});

/** Polls of a turn as a stream sees them: entries appear, the partial output grows, a retry starts over. */
function timeline(final: string, cuts: number[], retryAt: number | null): Array<{ entries: HistoryEntry[]; partial: PartialOutput | null }> {
  const polls: Array<{ entries: HistoryEntry[]; partial: PartialOutput | null }> = [];
  const base = [input(1, 1, 'go')];
  polls.push({ entries: base, partial: null });
  const attempt1 = retryAt === null ? cuts : cuts.filter((n) => n <= retryAt);
  for (const n of attempt1) polls.push({ entries: base, partial: partial(final.slice(0, n)) });
  if (retryAt !== null)
    for (const n of cuts.filter((x) => x > retryAt)) polls.push({ entries: base, partial: partial(final.slice(0, n), { attempt: 2, tail: 8 }) });
  const done = [
    ...base,
    output(2, final, [['c1', '{"a":1}']], { call: '1', attempt: retryAt === null ? 1 : 2 }),
    results(3, ['c1']),
    output(4, 'end', [], { call: '2', attempt: 1 }),
  ];
  polls.push({ entries: done, partial: null });
  return polls;
}

/** Runs the polls from a cursor; the events with their cursors. */
function follow(polls: ReturnType<typeof timeline>, from: Cursor) {
  const out: Array<{ event: AGUIEvent; cursor: Cursor }> = [];
  let c = from;
  for (const p of polls) {
    const r = deriveEvents({ mode: agent, cursor: c, entries: p.entries.filter((e) => e.seq > c.seq), partial: p.partial });
    out.push(...r.emitted);
    c = r.cursor;
  }
  return out;
}

test('property: resuming from the cursor of any event gives exactly the events after it, whatever the timing', () => {
  fc.assert(
    fc.property(
      fc.string({ minLength: 1, maxLength: 40 }),
      fc.array(fc.integer({ min: 0, max: 40 }), { maxLength: 6 }),
      fc.option(fc.integer({ min: 0, max: 40 })),
      fc.nat(),
      (final, rawCuts, retryAt, pick) => {
        const cuts = [...new Set(rawCuts.map((n) => Math.min(n, final.length)))].sort((a, b) => a - b);
        const polls = timeline(final, cuts, retryAt === null ? null : Math.min(retryAt, final.length));
        const whole = follow(polls, cursorAt(0));
        // The recorded text always ends up whole, under the message it streamed as (or one after a retry).
        const joined = texts(whole);
        expect(Object.values(joined)).toContain(final);
        // Interrupt after event k, at the poll it came from, and resume from its cursor (a parsed SSE id).
        const k = pick % whole.length;
        let seen = 0;
        for (let i = 0; i < polls.length; i++) {
          const upto = follow(polls.slice(0, i + 1), cursorAt(0)).length;
          if (upto > k) {
            const resumed = follow(polls.slice(i), parseCursor(formatCursor(whole[k].cursor))!);
            expect([...whole.slice(0, k + 1), ...resumed].map((e) => e.event)).toEqual(whole.map((e) => e.event));
            seen++;
            break;
          }
        }
        expect(seen).toBe(1);
      },
    ),
    { numRuns: 300 },
  );
});

test('JSON Patch between two states applies to the first to give the second', () => {
  const a: Json = {
    runState: 'WaitingInput',
    blockedOn: 'input',
    awaitingApproval: [],
    lastError: null,
    usage: { inputTokens: 1, costUsd: 0 },
    notebook: '',
    'a/b~c': 1,
  };
  const b: Json = {
    runState: 'WaitingToolResults',
    blockedOn: 'approval',
    awaitingApproval: [{ toolCallId: 'c2', toolName: 'deploy', arguments: '{}', reason: 'prod' }],
    lastError: { code: 'X', message: 'm', at: ts },
    usage: { inputTokens: 9, costUsd: 0.5 },
    notebook: 'n',
    tasks: [],
  };
  const ops = jsonPatch(a, b);
  expect(ops).toContainEqual({ op: 'remove', path: '/a~1b~0c' });
  expect(ops).toContainEqual({ op: 'replace', path: '/usage/inputTokens', value: 9 });
  expect(applyPatch(structuredClone(a), ops, true, false).newDocument).toEqual(b);
  expect(jsonPatch(b, b)).toEqual([]);
});
