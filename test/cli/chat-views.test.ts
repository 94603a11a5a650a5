/**
 * The pure parts of the chat's views: the run-state vocabulary, the readable state, how streamed text
 * continues (also when partial output carries only the tail of a long text), and the test terminal.
 */
import type { AgentStatus } from '../../workflows/messages';
import { describeState, listedRunStateWord, runStateWord } from '../../client/state-view';
import { continuation } from '../../cli/turn-view';
import { resolution, unknownOutcomeLine } from '../../cli/unknown-outcome-lines';
import { renderTerminal } from './pty-chat';
import { agentStatus } from '../fixtures/agent-status';

const status = (over: Partial<AgentStatus> = {}): AgentStatus =>
  agentStatus({ usage: { inputTokens: 120, outputTokens: 30, cachedInputTokens: 0, costUsd: 0, modelCalls: 2 }, ...over });

test('one vocabulary for run states', () => {
  expect(runStateWord(status())).toBe('waiting for input');
  expect(runStateWord(status({ blockedOn: null, runState: 'PendingInput' }))).toBe('working');
  expect(runStateWord(status({ blockedOn: 'approval' }))).toBe('waiting for approval');
  expect(runStateWord(status({ blockedOn: 'error' }))).toBe('blocked by an error');
  expect(runStateWord(status({ stopping: true }))).toBe('stopping');
  expect(listedRunStateWord('WaitingInput', 'RUNNING')).toBe('waiting for input');
  expect(listedRunStateWord('Working', 'RUNNING')).toBe('working');
  expect(listedRunStateWord('WaitingApproval', 'RUNNING')).toBe('waiting for approval');
  expect(listedRunStateWord('BlockedOnError', 'RUNNING')).toBe('blocked by an error');
  expect(runStateWord(status({ blockedOn: 'unknown_outcome' }))).toBe('waiting for a resolution');
  expect(listedRunStateWord('WaitingResolution', 'RUNNING')).toBe('waiting for a resolution');
  expect(listedRunStateWord(null, 'RUNNING')).toBe('running');
  expect(listedRunStateWord('WaitingInput', 'COMPLETED')).toBe('stopped');
  expect(listedRunStateWord('Working', 'TERMINATED')).toBe('ended: terminated');
});

test("a sub-agent being started (no id yet) reads 'starting'; one with an id, its work and its own state", () => {
  const child = { toolCallId: 'c1', profile: 'researcher', startedAt: '2026-01-01T00:00:00Z', status: 'Running' as const };
  const shown = describeState(
    'a1',
    status({
      subAgents: [
        { ...child, agentId: '' },
        { ...child, toolCallId: 'c2', agentId: 'a1-c2' },
      ],
    }),
    { 'a1-c2': 'working' },
  );
  expect(shown).toContain('  └ sub-agent (researcher, call c1): starting\n');
  expect(shown).toContain('  └ sub-agent a1-c2 (researcher, call c2): working on its task; working');
  expect(shown).not.toContain('sub-agent  (');
});

test('the readable state names what the agent does and what blocks it', () => {
  const working = describeState('a1', status({ blockedOn: null, runState: 'WaitingToolResults' }));
  expect(working.split('\n')[0]).toBe('agent a1: working (running tools)');
  const blocked = describeState(
    'a1',
    status({
      blockedOn: 'error',
      runState: 'PendingInput',
      lastError: { code: 'ModelError.Authentication', message: '401 bad key', runState: 'PendingInput', at: '2026-01-01T00:00:00Z' },
    }),
  );
  expect(blocked).toContain('agent a1: blocked by an error\n');
  expect(blocked).toContain('error ModelError.Authentication: 401 bad key');
  expect(blocked).not.toMatch(/PendingInput|WaitingInput/);
});

test('streamed text continues what was shown, or says it does not', () => {
  expect(continuation('', 'Hello')).toBe('Hello');
  expect(continuation('Hel', 'Hello there')).toBe('lo there');
  expect(continuation('Hello', 'Goodbye')).toBeUndefined(); // a retried call started over
  const long = Array.from({ length: 3000 }, (_, i) => `word${i}`).join(' ');
  const shown = long.slice(0, 20_000);
  expect(continuation(shown, long.slice(-16 * 1024))).toBe(long.slice(20_000)); // only the tail came
});

test('the test terminal applies carriage returns and line clears', () => {
  expect(renderTerminal('you> \r\x1b[0Kagent> hi\r\nyou> ')).toEqual(['agent> hi', 'you> ']);
  expect(renderTerminal('abc\x1b[1Gx\x1b[K\r\n')).toEqual(['x']);
});

test("the chat's /resolve reads the words of livecontext resolve, and nothing else", () => {
  expect(resolution(['--done', 'charged', 'once'])).toEqual({ done: 'charged once' });
  expect(resolution(['--failed', 'no', 'charge'])).toEqual({ failed: 'no charge' });
  expect(resolution(['--retry'])).toEqual({ retry: true });
  for (const words of [[], ['--done'], ['--failed', ' '], ['--retry', 'now'], ['--ok', 'x'], ['done', 'x']]) expect(resolution(words)).toBeUndefined();
  const u = {
    toolCallId: 'call_1',
    toolName: 'charge',
    arguments: '{}',
    reason: 'attempt 1 of charge never reported; not run again',
    startedAt: 't0',
    since: 't1',
  };
  expect(unknownOutcomeLine(u)).toBe(
    '  ! charge {}: outcome unknown (attempt 1 of charge never reported): /resolve call_1 --done TEXT | --failed TEXT | --retry',
  );
});
