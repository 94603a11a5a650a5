/** budgetHit: what counts against each budget — the turn, the UTC day, failures in a row, a retry's grant. */
import { budgetHit, DEFAULT_BUDGETS } from '../../agent/budgets';
import type { HistoryEntry } from '../../agent/index';

const invocation = { providerId: 'p', specification: 's', model: 'm' };
let seq = 0;
const at = (day: string) => `${day}T12:00:00.000Z`;
const input = (day = '2026-11-23'): HistoryEntry => ({ kind: 'model_input', seq: ++seq, timestamp: at(day), sections: [{ title: 'Input', content: 'go' }] });
const output = (tokens = 0, costUsd = 0, day = '2026-11-23'): HistoryEntry => ({
  kind: 'model_output',
  seq: ++seq,
  timestamp: at(day),
  contents: [],
  toolCalls: [{ toolName: 't', toolCallId: `c${seq}`, rawArguments: '{}' }],
  invocation,
  usage: { inputTokens: tokens, outputTokens: 0, ...(costUsd ? { costUsd } : {}) },
});
const results = (...statuses: Array<'Success' | 'Failed'>): HistoryEntry => ({
  kind: 'tool_results',
  seq: ++seq,
  timestamp: at('2026-11-23'),
  results: statuses.map((status, i) => ({ toolName: 't', toolCallId: `r${seq}-${i}`, status, result: '' })),
});
const now = Date.parse('2026-11-23T18:00:00Z');

test("model calls count from the turn's input; the default stops at 50; 0 means no limit", () => {
  const earlier = [input(), ...Array.from({ length: 40 }, () => output())];
  const turn = [input(), ...Array.from({ length: 50 }, () => output())];
  expect(budgetHit([...earlier, ...turn.slice(0, 50)], undefined, 0, now)).toBeUndefined();
  expect(budgetHit([...earlier, ...turn], undefined, 0, now)).toMatchObject({ code: 'Budget.TurnModelCalls' });
  expect(budgetHit([...earlier, ...turn], { turnModelCalls: 0 }, 0, now)).toBeUndefined();
  // A retry's grant: only entries after it count.
  expect(budgetHit([...earlier, ...turn], undefined, turn[10].seq, now)).toBeUndefined();
  expect(DEFAULT_BUDGETS.turnModelCalls).toBe(50);
});

test('tokens and cost per turn and per UTC day', () => {
  const yesterday = [input('2026-11-22'), output(900, 0.9, '2026-11-22')];
  const today = [input(), output(300, 0.3), output(300, 0.3)];
  const all = [...yesterday, ...today];
  expect(budgetHit(all, { turnTokens: 600 }, 0, now)).toMatchObject({ code: 'Budget.TurnTokens' });
  expect(budgetHit(all, { turnTokens: 601 }, 0, now)).toBeUndefined();
  expect(budgetHit(all, { turnCostUsd: 0.6 }, 0, now)).toMatchObject({ code: 'Budget.TurnCost' });
  expect(budgetHit(all, { dayTokens: 600 }, 0, now)).toMatchObject({ code: 'Budget.DayTokens', message: expect.stringContaining('2026-11-23') });
  expect(budgetHit(all, { dayTokens: 601 }, 0, now)).toBeUndefined(); // yesterday's 900 do not count today
  expect(budgetHit(all, { dayCostUsd: 0.5 }, 0, now)).toMatchObject({ code: 'Budget.DayCost' });
});

test('failed tool calls in a row, across batches, until a success', () => {
  const base = [input(), output()];
  expect(budgetHit([...base, results('Failed', 'Failed'), results('Failed')], { consecutiveToolFailures: 3 }, 0, now)).toMatchObject({
    code: 'Budget.ConsecutiveToolFailures',
  });
  expect(budgetHit([...base, results('Failed', 'Success'), results('Failed', 'Failed')], { consecutiveToolFailures: 3 }, 0, now)).toBeUndefined();
  expect(budgetHit([...base, ...Array.from({ length: 20 }, () => results('Failed'))], undefined, 0, now)).toMatchObject({
    code: 'Budget.ConsecutiveToolFailures',
  });
});
