/**
 * Recorded histories (test/replay/histories/<scenario>_<version>.json) replay against the current
 * workflow bundle. A change to workflow behaviour that breaks one needs `patched()`.
 * Re-record with LIVECONTEXT_RECORD_HISTORIES=1 (only for new scenarios; old files stay as they are).
 */
import { readFileSync, readdirSync } from 'node:fs';
import path from 'node:path';
import { DeterminismViolationError } from '@temporalio/workflow';
import { Worker, bundleWorkflowCode } from '@temporalio/worker';
import { livecontextDataConverter } from '../../common/codec/data-converter';
import { guardedForWorkers } from '../../common/codec/undecodable-guard';
import { workflowBundle } from '../support/temporal';

const dir = path.join(__dirname, 'histories');
/** The workflow id a history ran under, where its code depends on it (e.g. sub-agents' ids); else its file name. */
const WORKFLOW_IDS = 'workflow-ids.json';
const workflowIds: Record<string, string> = JSON.parse(readFileSync(path.join(dir, WORKFLOW_IDS), 'utf8'));
const files = readdirSync(dir).filter((f) => f.endsWith('.json') && f !== WORKFLOW_IDS);
const load = (f: string) => JSON.parse(readFileSync(path.join(dir, f), 'utf8'));

test('there are recorded histories', () => {
  expect(files.length).toBeGreaterThan(0);
});

test.each(files)('%s replays against the current workflow code', async (file) => {
  // The workers' data converter: histories may hold payloads that no worker can decode (dropped signals).
  await Worker.runReplayHistory(
    { workflowBundle: workflowBundle(), dataConverter: guardedForWorkers(livecontextDataConverter()) },
    load(file),
    workflowIds[file] ?? file,
  );
});

test('every history replays in one worker, its workflows sharing the preloaded agent core', async () => {
  // One reusable context for all of them (workflows/shared-modules.ts): nothing a workflow leaves in the
  // shared modules may change how another replays.
  const histories = files.map((file) => ({ workflowId: workflowIds[file] ?? file, history: load(file) }));
  const results = Worker.runReplayHistories({ workflowBundle: workflowBundle(), dataConverter: guardedForWorkers(livecontextDataConverter()) }, histories);
  const failed: string[] = [];
  for await (const result of results) if (result.error) failed.push(`${result.workflowId}: ${result.error.message}`);
  expect(failed).toEqual([]);
});

test('a deliberately changed workflow fails replay with a determinism error', async () => {
  const changed = await bundleWorkflowCode({
    workflowsPath: require.resolve('./changed-workflow'),
    logger: { info() {}, warn() {}, error() {}, debug() {}, trace() {}, log() {} } as never,
  });
  await expect(Worker.runReplayHistory({ workflowBundle: changed }, load(files[0]), files[0])).rejects.toThrow(DeterminismViolationError);
});
