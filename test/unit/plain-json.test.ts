/**
 * The entries' JsonValue schema passes plain JSON without zod's union (agent/plain-json.ts): it must say
 * of every value what the union says, with the same issues, and let through only what the union does.
 */
import { z } from 'zod';
import { HistoryEntry, JsonValue, Metadata } from '../../agent/index';
import { isPlainJson } from '../../agent/plain-json';

type Json = string | number | boolean | null | Json[] | { [key: string]: Json };
const union: z.ZodType<Json> = z.lazy(() => z.union([z.string(), z.number(), z.boolean(), z.null(), z.array(union), z.record(z.string(), union)]));

class Point {
  x = 1;
}
const sparse: unknown[] = [1, , 3];
const withSymbol = { a: 1, [Symbol('s')]: 2 };
const protoKey = JSON.parse('{"__proto__": {"x": 1}, "b": 2}') as unknown;
const bareObject = Object.assign(Object.create(null) as object, { a: [1, 'two', null] });
const hidden = Object.defineProperty({ a: 1 }, 'b', { value: undefined, enumerable: false });
const values: unknown[] = [
  'text',
  '',
  0,
  -1.5,
  1e300,
  NaN,
  Infinity,
  -Infinity,
  true,
  false,
  null,
  undefined,
  10n,
  Symbol('x'),
  () => 1,
  [],
  [1, 'a', null, [true, { b: [] }]],
  [1, undefined],
  sparse,
  {},
  { a: 1, b: { c: [1, 2, { d: 'e' }] } },
  { a: undefined },
  { a: NaN },
  { a: { b: [1, Infinity] } },
  { a: new Date(0) },
  new Date(0),
  new Point(),
  { p: new Point() },
  new Map(),
  withSymbol,
  protoKey,
  { nested: protoKey },
  bareObject,
  hidden,
  { constructor: 'plain' },
  { constructor: { prototype: 1 } },
  { f: () => 1 },
  new Uint8Array(2),
  Object.assign([1, 2], { extra: 'ignored' }),
];

const verdict = (r: { success: boolean; error?: z.ZodError }) =>
  r.success ? 'ok' : r.error!.issues.map((i) => ({ code: i.code, path: i.path, message: i.message }));

test.each(values.map((v, i) => [i, v]))('value %i: JsonValue says what the zod union says, with the same issues', (_i, value) => {
  expect(verdict(JsonValue.safeParse(value))).toEqual(verdict(union.safeParse(value)));
  expect(verdict(Metadata.safeParse({ key: value }))).toEqual(verdict(z.record(z.string(), union).safeParse({ key: value })));
  if (isPlainJson(value)) expect(union.safeParse(value).success).toBe(true);
});

test('an entry with a JSON field missing, or not JSON, is still refused', () => {
  const base = { seq: 1, timestamp: new Date(0).toISOString() };
  expect(HistoryEntry.safeParse({ ...base, kind: 'widget_write', widget: 'notebook', write: { text: 'x' } }).success).toBe(true);
  expect(HistoryEntry.safeParse({ ...base, kind: 'widget_write', widget: 'notebook' }).success).toBe(false);
  expect(HistoryEntry.safeParse({ ...base, kind: 'widget_write', widget: 'notebook', write: { at: new Date(0) } }).success).toBe(false);
});
