/** MCP tool names valid for both providers: `<server>__<tool>`, `[a-zA-Z0-9_-]`, ≤ 64, unique, stable. */
import fc from 'fast-check';
import { namespacedToolName, namespacedToolNames } from '../../activities/mcp/tool-names';

const VALID = /^[a-zA-Z0-9_-]{1,64}$/;

test('namespaced and sanitized', () => {
  expect(namespacedToolName('fs', 'read_file')).toBe('fs__read_file');
  expect(namespacedToolName('my docs', 'search.v2')).toBe('my_docs__search_v2');
  expect(namespacedToolName('every', 'get-sum')).toBe('every__get-sum');
  expect(namespacedToolName('', '')).toBe('____');
});

test('long names are cut to 64 with a hash that keeps them apart', () => {
  const a = namespacedToolName('server', `${'x'.repeat(80)}_a`);
  const b = namespacedToolName('server', `${'x'.repeat(80)}_b`);
  expect(a).toHaveLength(64);
  expect(b).toHaveLength(64);
  expect(a).not.toBe(b);
  expect(namespacedToolName('server', `${'x'.repeat(80)}_a`)).toBe(a); // stable
});

test('clashes after sanitizing get a suffix; names other sources hold are avoided', () => {
  expect(namespacedToolNames('s', ['a.b', 'a_b', 'a b'])).toEqual(['s__a_b', 's__a_b_2', 's__a_b_3']);
  expect(namespacedToolNames('s', ['x'], new Set(['s__x']))).toEqual(['s__x_2']);
});

test('any server and tool names give valid, unique names', () => {
  fc.assert(
    fc.property(fc.string(), fc.array(fc.string({ maxLength: 120 }), { maxLength: 20 }), (server, tools) => {
      const names = namespacedToolNames(server, tools);
      expect(names.every((n) => VALID.test(n))).toBe(true);
      expect(new Set(names).size).toBe(names.length);
    }),
  );
});
