/**
 * The build ID a livecontext worker gives Temporal when the user sets none (and no worker deployment):
 * `livecontext-changes-v3@<version>+<sha256 of the workflow bundle>` — the SDK's default, with the change
 * mark the agent workflow reads (workflows/changes-mark.ts) so that the runs whose first task it runs
 * take this code's changes without a marker event and its search-attribute write each.
 */
import { createHash } from 'node:crypto';
import { readFileSync } from 'node:fs';
import path from 'node:path';
import type { WorkerOptions } from '@temporalio/worker';
import { changesMark } from '../workflows/changes-mark';
import { packageRoot } from './package-root';

export function livecontextBuildId(bundle: WorkerOptions['workflowBundle']): string {
  const code = bundle && 'code' in bundle ? bundle.code : bundle && 'codePath' in bundle ? readFileSync(bundle.codePath, 'utf8') : undefined;
  const sha = code === undefined ? '' : `+${createHash('sha256').update(code).digest('hex')}`;
  return `${changesMark()}@${packageVersion()}${sha}`;
}

let version: string | undefined;
function packageVersion(): string {
  version ??= (JSON.parse(readFileSync(path.join(packageRoot(), 'package.json'), 'utf8')) as { version: string }).version;
  return version;
}
