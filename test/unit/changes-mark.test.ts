/** The change mark of a worker's build ID (workflows/changes-mark.ts), as the agent workflow reads it. */
import { CHANGES_LEVEL, changesMark, changesOfBuildId } from '../../workflows/changes-mark';

test('a livecontext build ID says its change level; any other build ID says none', () => {
  expect(changesOfBuildId(`${changesMark()}@0.1.0+${'a'.repeat(64)}`)).toBe(CHANGES_LEVEL);
  expect(changesOfBuildId('livecontext-changes-v12@1.0.0')).toBe(12);
  expect(changesOfBuildId('@temporalio/worker@1.24.0+742794eaf123')).toBe(0); // the SDK's default
  expect(changesOfBuildId('my-agents-build-7')).toBe(0);
  expect(changesOfBuildId('')).toBe(0);
  expect(changesOfBuildId(undefined)).toBe(0);
  // Only the whole mark counts: not a longer word that ends with it, nor a level cut short.
  expect(changesOfBuildId('notlivecontext-changes-v3')).toBe(0);
  expect(changesOfBuildId('livecontext-changes-v')).toBe(0);
});
