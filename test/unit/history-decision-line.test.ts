/**
 * `livecontext history` says who decided on a call that waited for a person: approved or denied, through
 * which door (cli, rest, mcp, page, a2a, ag-ui…), by whom and when — read from the result's `decision`.
 */
import type { ToolResultsEntry } from '../../agent/index';
import { formatEntry } from '../../cli/format';

const entry = (metadata?: ToolResultsEntry['metadata']): ToolResultsEntry => ({
  kind: 'tool_results',
  seq: 7,
  timestamp: '2026-11-27T18:00:00.000Z',
  results: [{ toolName: 'delete_file', toolCallId: 'c1', status: 'Success', result: 'deleted notes/a.md', ...(metadata ? { metadata } : {}) }],
});

test('an approved call names the door, the person and the time', () => {
  const e = entry({ decision: { approved: true, door: 'rest', by: 'ada', at: '2026-11-27T18:00:01.000Z' } });
  expect(formatEntry(e)).toEqual(['#7   ← delete_file Success (approved through rest by ada at 2026-11-27T18:00:01.000Z): deleted notes/a.md']);
});

test('a denial without a name, and a result no one decided on', () => {
  const denied = entry({ decision: { approved: false, door: 'a2a', at: '2026-11-27T18:00:02.000Z' } });
  expect(formatEntry(denied)[0]).toContain('(denied through a2a at 2026-11-27T18:00:02.000Z)');
  expect(formatEntry(entry())).toEqual(['#7   ← delete_file Success: deleted notes/a.md']);
  // A decision recorded without its door (histories before the one-wait change) adds nothing.
  expect(formatEntry(entry({ decision: { approved: true, at: 'x' } }))).toEqual(['#7   ← delete_file Success: deleted notes/a.md']);
});
