import { formatEntry } from '../../cli/format';
import type { HistoryEntry } from '../../agent/index';

const results = (metadata: Record<string, unknown>): HistoryEntry =>
  ({
    seq: 7,
    kind: 'tool_results',
    timestamp: '2026-11-27T12:00:00.000Z',
    results: [{ toolCallId: 'call_1', toolName: 'charge', status: 'Success', result: 'charge #2', metadata }],
  }) as unknown as HistoryEntry;

describe('history line of a call whose outcome was unknown', () => {
  it('says how it was settled', () => {
    expect(formatEntry(results({ outcome_was_unknown: 'worker died', resolved: 'done', resolved_by: 'ada' }))).toEqual([
      '#7   ← charge Success (outcome was unknown; resolved done by ada): charge #2',
    ]);
    expect(formatEntry(results({ reconciled: true }))[0]).toContain('(outcome was unknown; reconcile found the effect)');
    expect(formatEntry(results({ reconciled: 'not_done' }))[0]).toContain('reconcile found no effect: run again');
    expect(formatEntry(results({ rerun_after_unknown: true }))[0]).toContain('run again: idempotent');
  });

  it('adds nothing to an ordinary result', () => {
    expect(formatEntry(results({ attempts: 1 }))).toEqual(['#7   ← charge Success: charge #2']);
  });
});
