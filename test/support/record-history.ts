/** With LIVECONTEXT_RECORD_HISTORIES=1, integration tests save their history for the replay suite. */
import { readFileSync, writeFileSync } from 'node:fs';
import path from 'node:path';
import type { WorkflowHandle } from '@temporalio/client';
import { historyToJSON } from '@temporalio/common/lib/proto-utils';

export async function maybeRecordHistory(handle: WorkflowHandle, fileName: string): Promise<void> {
  if (!process.env.LIVECONTEXT_RECORD_HISTORIES) return;
  const dir = path.join(__dirname, '../replay/histories');
  writeFileSync(path.join(dir, fileName), historyToJSON(await handle.fetchHistory()));
  // The replay suite replays it under the id it ran under (workflow code may depend on it).
  const ids = JSON.parse(readFileSync(path.join(dir, 'workflow-ids.json'), 'utf8')) as Record<string, string>;
  ids[fileName] = handle.workflowId;
  writeFileSync(path.join(dir, 'workflow-ids.json'), `${JSON.stringify(ids, null, 2)}\n`);
}
