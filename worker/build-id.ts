/**
 * The build ID a livecontext worker gives Temporal when the user sets none (and no worker deployment):
 * `livecontext-changes-v4@<version>+<sha256 of the workflow bundle>` — like the SDK's default, with the
 * change mark the agent workflow reads (workflows/changes-mark.ts) so that the runs whose first task it
 * runs take the bundle's changes without a marker event and its search-attribute write each. The level is
 * the bundle's own (its text's CHANGES_LEVEL_TAG): a bundle of older code, or one the SDK builds from a
 * `workflowsPath`, gets no mark (undefined: the SDK's default build ID).
 */
import { createHash } from 'node:crypto';
import { readFileSync } from 'node:fs';
import path from 'node:path';
import type { WorkerOptions } from '@temporalio/worker';
import { changesLevelOfBundle, changesMark } from '../workflows/changes-mark';
import { packageRoot } from './package-root';

export function livecontextBuildId(bundle: WorkerOptions['workflowBundle']): string | undefined {
  const code = bundle && 'code' in bundle ? bundle.code : bundle && 'codePath' in bundle ? readFileSync(bundle.codePath, 'utf8') : undefined;
  const level = code === undefined ? 0 : changesLevelOfBundle(code);
  if (!level) return undefined;
  return `${changesMark(level)}@${packageVersion()}+${createHash('sha256').update(code!).digest('hex')}`;
}

let version: string | undefined;
function packageVersion(): string {
  version ??= (JSON.parse(readFileSync(path.join(packageRoot(), 'package.json'), 'utf8')) as { version: string }).version;
  return version;
}
