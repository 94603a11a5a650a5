/** One turn's phase (client/turn-phase), read from the agent's state and the turn's outcome, with its open waits. */
import type { OpenWait, TurnOutcome } from '../../agent/index';
import { TURN_OVER, turnPhase } from '../../client/turn-phase';
import type { AgentStatus } from '../../workflows/messages';

const state = (s: Partial<AgentStatus>) => ({ consumedInputSeq: 3, nextInputSeq: 4, blockedOn: null, ...s }) as AgentStatus;
const outcome = (o: Partial<TurnOutcome>) => ({ inputSeq: 3, ...o }) as TurnOutcome;
const approval: OpenWait = {
  waitId: 'approval-9-call_1',
  kind: 'approval',
  openedAt: 'x',
  toolCallId: 'call_1',
  toolName: 'deploy',
  arguments: '{}',
  reason: 'r',
};
const unknown: OpenWait = { waitId: 'outcome-9-call_2', kind: 'unknown_outcome', openedAt: 'x', toolCallId: 'call_2', toolName: 'pay', arguments: '{}' };
const question: OpenWait = { waitId: 'question-12', kind: 'question', openedAt: 'x', question: 'Which one?' };

test('a turn not over: queued, working, waiting on a person (with its waits), blocked by an error it can retry', () => {
  expect(turnPhase(state({ consumedInputSeq: 2 }), 3, undefined)).toEqual({ phase: 'queued', waits: [] });
  expect(turnPhase(state({}), 3, undefined)).toEqual({ phase: 'working', waits: [] });
  expect(turnPhase(state({ blockedOn: 'approval', waits: [approval, unknown] }), 3, undefined)).toEqual({ phase: 'waiting', waits: [approval, unknown] });
  expect(turnPhase(state({ blockedOn: 'unknown_outcome', waits: [unknown] }), 3, undefined)).toEqual({ phase: 'waiting', waits: [unknown] });
  // A state from before waits were listed still says it waits.
  expect(turnPhase(state({ blockedOn: 'approval' }), 3, undefined)).toEqual({ phase: 'waiting', waits: [] });
  const error = outcome({ status: 'error' });
  expect(turnPhase(state({ blockedOn: 'error' }), 3, error)).toEqual({ phase: 'blocked', waits: [], outcome: error });
  expect(turnPhase(state({ blockedOn: 'error' }), 3, undefined)).toEqual({ phase: 'blocked', waits: [] });
  expect(turnPhase(state({ consumedInputSeq: 3 }), 3, outcome({ status: 'continued' })).phase).toBe('working');
});

test('a turn over is named after its outcome; an asked turn holds its question while nobody answered it', () => {
  const asked = outcome({ status: 'asked', question: 'Which one?', waitId: 'question-12' });
  expect(turnPhase(state({ waits: [question] }), 3, asked)).toEqual({ phase: 'asked', waits: [question], outcome: asked });
  expect(turnPhase(state({}), 3, asked)).toEqual({ phase: 'asked', waits: [], outcome: asked }); // answered already
  // Another question of a later turn is not this turn's.
  expect(turnPhase(state({ consumedInputSeq: 5, waits: [{ ...question, waitId: 'question-30' }] }), 3, asked).waits).toEqual([]);
  // An error on an earlier turn (the agent took inputs since) is over.
  expect(turnPhase(state({ consumedInputSeq: 4, blockedOn: 'error' }), 3, outcome({ status: 'error' })).phase).toBe('failed');
  for (const s of ['answered', 'interrupted', 'ignored', 'stopped', 'reset', 'archived'] as const) {
    const p = turnPhase(state({ blockedOn: 'approval', waits: [approval] }), 3, outcome({ status: s }));
    expect(p).toMatchObject({ phase: s, waits: [] });
    expect(TURN_OVER.has(p.phase)).toBe(true);
  }
  for (const p of ['queued', 'working', 'waiting', 'blocked'] as const) expect(TURN_OVER.has(p)).toBe(false);
});
