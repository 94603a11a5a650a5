/**
 * AG-UI 1.0 from the agent's waits and sub-agents (gateway/events): each wait is an Interrupt whose id is
 * the wait id; resume entries become answers to the waits (or nothing, for what a client abandons); a
 * sub-agent's call shows as SUBAGENT_STARTED after the call and SUBAGENT_FINISHED or SUBAGENT_ERROR before
 * its result — events @ag-ui/client's verifier accepts.
 */
import { type AGUIEvent, EventType } from '@ag-ui/core';
import { EventSchema } from '@ag-ui/core/schemas';
import { verifyEvents } from '@ag-ui/client';
import { from } from 'rxjs';
import type { HistoryEntry, OpenWait } from '../../agent/index';
import { CANCELLED_REASON, ResumeRefusal, interruptOf, resumeActions } from '../../gateway/events/ag-ui-interrupts';
import { cursorAt } from '../../gateway/events/cursor';
import { deriveEvents } from '../../gateway/events/derive-events';
import { speaksInterrupts } from '../../gateway/routes/ag-ui-routes';

const approval: OpenWait = {
  waitId: 'approval-7-call_1',
  kind: 'approval',
  openedAt: 't',
  toolCallId: 'call_1',
  toolName: 'deploy',
  arguments: '{"env":"prod"}',
  reason: 'deploys to prod need approval',
};

test('each kind of wait is an Interrupt named by its wait id, with the answer it takes as its schema', () => {
  expect(interruptOf(approval)).toMatchObject({
    id: 'approval-7-call_1',
    reason: 'tool_call',
    toolCallId: 'call_1',
    message: 'Approve deploy({"env":"prod"})? deploys to prod need approval.',
    responseSchema: { required: ['approved'] },
    metadata: { livecontext: { kind: 'approval', toolName: 'deploy', arguments: '{"env":"prod"}', why: 'deploys to prod need approval' } },
  });
  expect(interruptOf({ waitId: 'question-9', kind: 'question', openedAt: 't', question: 'Which one?' })).toMatchObject({
    id: 'question-9',
    reason: 'input_required',
    message: 'Which one?',
    responseSchema: { required: ['text'] },
  });
  expect(interruptOf({ ...approval, waitId: 'outcome-7-call_1', kind: 'unknown_outcome', reason: 'the worker died' })).toMatchObject({
    id: 'outcome-7-call_1',
    reason: 'livecontext:unknown_outcome',
    toolCallId: 'call_1',
  });
});

test('resume entries become answers to waits: a cancelled approval is denied, a cancelled question or outcome left open', () => {
  expect(
    resumeActions([
      { interruptId: 'approval-7-call_1', status: 'resolved', payload: { approved: true, remember: true }, metadata: { by: ' ana ' } },
      { interruptId: 'approval-7-call_2', status: 'cancelled' },
      { interruptId: 'outcome-7-call_3', status: 'resolved', payload: { done: 'it shipped' } },
      { interruptId: 'outcome-7-call_4', status: 'cancelled' },
    ]),
  ).toEqual([
    { waitId: 'approval-7-call_1', kind: 'approval', seq: 7, answer: { approved: true, remember: true }, by: 'ana' },
    { waitId: 'approval-7-call_2', kind: 'approval', seq: 7, answer: { approved: false, reason: CANCELLED_REASON } },
    { waitId: 'outcome-7-call_3', kind: 'unknown_outcome', seq: 7, answer: { done: 'it shipped' } },
    { waitId: 'outcome-7-call_4', kind: 'unknown_outcome', seq: 7 },
  ]);
  expect(resumeActions([{ interruptId: 'question-9', status: 'resolved', payload: 'api' }])).toEqual([
    { waitId: 'question-9', kind: 'question', seq: 9, answer: { text: 'api' } },
  ]);
  expect(resumeActions([{ interruptId: 'question-9', status: 'cancelled' }])).toEqual([{ waitId: 'question-9', kind: 'question', seq: 9 }]);
  const refusal = (f: () => unknown) => {
    try {
      f();
    } catch (err) {
      return err instanceof ResumeRefusal ? `${err.code}: ${err.message}` : String(err);
    }
    return 'no refusal';
  };
  expect(refusal(() => resumeActions([{ interruptId: 'made-up', status: 'resolved' }]))).toMatch(/^UNKNOWN_WAIT: /);
  expect(refusal(() => resumeActions([{ interruptId: 'approval-7-call_1', status: 'resolved', payload: true }]))).toMatch(/^BAD_ANSWER: .*"approved"/);
  const twice = { interruptId: 'question-9', status: 'resolved' as const, payload: 'a' };
  expect(refusal(() => resumeActions([twice, twice]))).toMatch(/^BAD_RESUME: .*twice/);
});

test('runs end with interrupts only for clients that say they speak AG-UI 1.0', () => {
  const run = { threadId: 't', runId: 'r', messages: [], tools: [], context: [] };
  expect(speaksInterrupts(run)).toBe(false);
  expect(speaksInterrupts({ ...run, protocolVersion: '1.0' })).toBe(true);
  expect(speaksInterrupts({ ...run, protocolVersion: '1' })).toBe(true);
  expect(speaksInterrupts({ ...run, protocolVersion: '0.0.57' })).toBe(false);
});

test("a sub-agent's call: SUBAGENT_STARTED after the call, SUBAGENT_FINISHED or SUBAGENT_ERROR before its result", async () => {
  const ts = '2025-01-01T00:00:00.000Z';
  const invocation = { providerId: 'openai', specification: 'openai-chat-completions', model: 'gpt' };
  const entries: HistoryEntry[] = [
    { kind: 'model_input', seq: 1, timestamp: ts, inputSeq: 1, sections: [{ title: 'Input', content: 'look it up' }] },
    {
      kind: 'model_output',
      seq: 2,
      timestamp: ts,
      contents: [],
      invocation,
      metadata: { call_id: 'c1', attempts: 1 },
      toolCalls: [
        { toolCallId: 'call_a', toolName: 'ask_researcher', rawArguments: '{"task":"a"}' },
        { toolCallId: 'call_b', toolName: 'ask_researcher', rawArguments: '{"task":"b"}' },
        { toolCallId: 'call_c', toolName: 'deploy', rawArguments: '{}' },
      ],
    },
    {
      kind: 'tool_results',
      seq: 3,
      timestamp: ts,
      results: [
        { toolCallId: 'call_a', toolName: 'ask_researcher', status: 'Success', result: 'found a', metadata: { sub_agent: 'p/sub-1' } },
        { toolCallId: 'call_b', toolName: 'ask_researcher', status: 'Failed', result: 'no luck', metadata: { sub_agent: 'p/sub-2' } },
        { toolCallId: 'call_c', toolName: 'deploy', status: 'Success', result: 'deployed' },
      ],
    },
    { kind: 'model_output', seq: 4, timestamp: ts, contents: ['a, not b'], invocation, toolCalls: [], metadata: { call_id: 'c2', attempts: 1 } },
  ];
  const subAgents = { researcher: { model: 'scripted:r', description: 'finds things out' } };
  const { emitted } = deriveEvents({ mode: { kind: 'agent', threadId: 'p' }, cursor: cursorAt(0), entries, subAgents });
  const events = emitted.map((e) => e.event);
  const sub = events.filter((e) => String(e.type).startsWith('SUBAGENT_') || e.type === EventType.TOOL_CALL_RESULT || e.type === EventType.TOOL_CALL_END);
  expect(sub.map((e) => [e.type, (e as { subagentRunId?: string; toolCallId?: string }).subagentRunId ?? (e as { toolCallId?: string }).toolCallId])).toEqual([
    ['TOOL_CALL_END', 'call_a'],
    ['SUBAGENT_STARTED', 'sub-call_a'],
    ['TOOL_CALL_END', 'call_b'],
    ['SUBAGENT_STARTED', 'sub-call_b'],
    ['TOOL_CALL_END', 'call_c'],
    ['SUBAGENT_FINISHED', 'sub-call_a'],
    ['TOOL_CALL_RESULT', 'call_a'],
    ['SUBAGENT_ERROR', 'sub-call_b'],
    ['TOOL_CALL_RESULT', 'call_b'],
    ['TOOL_CALL_RESULT', 'call_c'],
  ]);
  expect(events.find((e) => e.type === EventType.SUBAGENT_STARTED)).toMatchObject({
    name: 'researcher',
    description: 'finds things out',
    parentToolCallId: 'call_a',
  });
  expect(events.find((e) => e.type === EventType.SUBAGENT_FINISHED)).toMatchObject({ result: 'found a', metadata: { livecontext: { agentId: 'p/sub-1' } } });
  expect(events.find((e) => e.type === EventType.SUBAGENT_ERROR)).toMatchObject({ message: 'no luck', code: 'Failed' });
  for (const e of events) expect(EventSchema.safeParse(e).success).toBe(true);
  const verified = await new Promise<number>((resolve, reject) => {
    let n = 0;
    verifyEvents()(from(events as AGUIEvent[]) as never).subscribe({ next: () => n++, error: reject, complete: () => resolve(n) });
  });
  expect(verified).toBe(events.length);
});
