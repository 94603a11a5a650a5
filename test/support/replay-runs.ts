/** Replays what a test left on the server: every run of one workflow id, against this tree's workflow code. */
import type { Client } from '@temporalio/client';
import { Worker } from '@temporalio/worker';
import { livecontextDataConverter } from '../../common/codec/data-converter';
import { guardedForWorkers } from '../../common/codec/undecodable-guard';
import { workflowBundle } from './temporal';

/** Replays each run of `workflowId` in the order the server lists them (a nondeterminism throws); their run ids. */
export async function replayEveryRun(client: Client, workflowId: string): Promise<string[]> {
  const runs: string[] = [];
  for await (const wf of client.workflow.list({ query: `WorkflowId = '${workflowId}'` })) runs.push(wf.runId);
  for (const runId of runs) {
    const h = await client.workflow.getHandle(workflowId, runId).fetchHistory();
    await Worker.runReplayHistory({ workflowBundle: workflowBundle(), dataConverter: guardedForWorkers(livecontextDataConverter()) }, h, workflowId);
  }
  return runs;
}
