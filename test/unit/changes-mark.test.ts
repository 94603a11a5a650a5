/** The change mark of a worker's build ID (workflows/changes-mark.ts), as the agent workflow reads it. */
import { CHANGES_LEVEL, CHANGES_LEVEL_TAG, changesLevelOfBundle, changesMark, changesOfBuildId } from '../../workflows/changes-mark';

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

test("a bundle's change level is read from its text: the tag as the compiler wrote it, none in older code", () => {
  expect(changesLevelOfBundle(`var CHANGES_LEVEL_TAG = '${CHANGES_LEVEL_TAG}';`)).toBe(CHANGES_LEVEL);
  expect(changesLevelOfBundle('const CHANGES_LEVEL_TAG = "livecontext-workflow-changes-level:4";')).toBe(4);
  expect(changesLevelOfBundle('/* no tag: code from before the mark */ exports.agentWorkflow = agentWorkflow;')).toBe(0);
  // The reader's own pattern, bundled beside the tag, is not a level.
  expect(changesLevelOfBundle('const m = /livecontext-workflow-changes-level:(\\d+)[\'"`]/.exec(code);')).toBe(0);
});
