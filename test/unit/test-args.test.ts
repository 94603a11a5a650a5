/**
 * Issue 26: `npm test -- <file>` ran the whole-project type-check and lint before a 0.4 s test (43 s in
 * all). scripts/test.mjs skips them, and says so, when test files are named; these are the arguments
 * that count as named tests.
 */
// eslint-disable-next-line @typescript-eslint/no-require-imports
const { namedTests } = require('../../scripts/test-args.cjs') as { namedTests(args: string[]): string[] };

test('files, folders and path patterns are named tests; option values are not', () => {
  expect(namedTests(['test/unit/offline-demo-model.test.ts'])).toEqual(['test/unit/offline-demo-model.test.ts']);
  expect(namedTests(['--', 'test/unit', 'demo-model'])).toEqual(['test/unit', 'demo-model']);
  expect(namedTests(['-t', 'a greeting', 'test/unit/x.test.ts'])).toEqual(['test/unit/x.test.ts']);
  expect(namedTests(['--selectProjects', 'unit', 'integration', '--', 'test/unit/x.test.ts'])).toEqual(['test/unit/x.test.ts']);
  expect(namedTests(['--testNamePattern=greeting', '--ci', 'x.test.ts'])).toEqual(['x.test.ts']);
  expect(namedTests([])).toEqual([]);
  expect(namedTests(['--ci', '-t', 'only a name'])).toEqual([]);
  expect(namedTests(['--selectProjects', 'unit'])).toEqual([]);
});
