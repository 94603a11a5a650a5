/** Derived ids (sub-agents' ids and senders) stay within 200 characters, stay distinct, and short ones are kept as they are. */
import { MAX_DERIVED_ID_CHARS, idHash, shortenId } from '../../agent/index';

test('a short id is kept; a long one is clipped with a hash of the whole, its tail kept', () => {
  expect(shortenId('parent', '--researcher-2-1')).toBe('parent--researcher-2-1');
  const long = 'p'.repeat(300);
  const child = shortenId(long, '--researcher-2-1');
  expect(child).toHaveLength(MAX_DERIVED_ID_CHARS);
  expect(child).toMatch(/^p+~[0-9a-f]{16}--researcher-2-1$/);
  expect(shortenId(long, '--researcher-2-2')).not.toBe(child);
  expect(shortenId(`${long}x`, '--researcher-2-1')).not.toBe(child); // ids that share their start still differ
  expect(shortenId(long)).toHaveLength(MAX_DERIVED_ID_CHARS);
  expect(shortenId('x', 't'.repeat(400))).toHaveLength(MAX_DERIVED_ID_CHARS);
});

test('no lone surrogate at the cut, and the hash is stable', () => {
  const id = shortenId('😀'.repeat(150));
  expect(id.length).toBeLessThanOrEqual(MAX_DERIVED_ID_CHARS);
  expect(id).not.toMatch(/[\uD800-\uDBFF]$/);
  expect(idHash('abc')).toBe(idHash('abc'));
  expect(idHash('abc')).toMatch(/^[0-9a-f]{16}$/);
});
