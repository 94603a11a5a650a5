import type { LogEntry } from '@temporalio/worker';
import { categoryFilter, enabledCategories } from '../../common/logging';

const entry = (level: LogEntry['level'], category?: string): LogEntry => ({
  level,
  message: 'm',
  meta: category ? { category } : {},
  timestampNanos: 0n,
});

test('LIVECONTEXT_DEBUG turns categories on; their debug lines show as INFO with the category', () => {
  const out: LogEntry[] = [];
  const sink = categoryFilter((e) => out.push(e), enabledCategories('widgets, History'));
  sink(entry('DEBUG', 'Widgets'));
  sink(entry('DEBUG', 'Tools'));
  sink(entry('DEBUG', 'History'));
  sink(entry('WARN', 'Tools'));
  sink(entry('INFO'));
  expect(out.map((e) => [e.level, e.message])).toEqual([
    ['INFO', '[Widgets] m'],
    ['INFO', '[History] m'],
    ['WARN', 'm'],
    ['INFO', 'm'],
  ]);
  expect(enabledCategories('all').size).toBe(5);
});
