/** With LIVECONTEXT_RECORD_HISTORIES=1, integration tests save their history for the replay suite. */
import { writeFileSync } from 'node:fs';
import path from 'node:path';
import type { WorkflowHandle } from '@temporalio/client';
import { historyToJSON } from '@temporalio/common/lib/proto-utils';

export async function maybeRecordHistory(handle: WorkflowHandle, fileName: string): Promise<void> {
  if (!process.env.LIVECONTEXT_RECORD_HISTORIES) return;
  writeFileSync(path.join(__dirname, '../replay/histories', fileName), historyToJSON(await handle.fetchHistory()));
}
