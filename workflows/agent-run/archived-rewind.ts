/**
 * A rewind to an archived entry (issue 30): the workflow never reads a segment, so an activity reads the
 * one holding the entry and returns the state the agent goes on from (activities/rewind-point.ts); the
 * rewind is then made as any other, with that state. Input arriving meanwhile waits in the inbox (the
 * loop at rest takes none while the point is read) and is kept; should the agent be working by then (a
 * retry), the rewind is refused as any rewind of a working agent is.
 */
import { ApplicationFailure, proxyActivities } from '@temporalio/workflow';
import type { createActivities } from '../../activities/index';
import { type Agent, LivecontextError, type RewindResult } from '../../agent/index';
import { ARCHIVE_ACTIVITY_OPTIONS } from '../activity-options';
import { decoded, toAgentFailure } from './failures';
import type { RunControl } from './run-control';

const { rewindPoint } = proxyActivities<ReturnType<typeof createActivities>>(ARCHIVE_ACTIVITY_OPTIONS);

export async function rewindIntoArchive(agent: Agent, run: RunControl, request: unknown): Promise<RewindResult> {
  const { toSeq } = agent.checkRewind(request, { archived: true });
  const index = agent.state.archive;
  if (!index) throw ApplicationFailure.create({ type: 'BAD_REWIND_POINT', message: `Entry #${toSeq} is not archived.`, nonRetryable: true });
  let out;
  try {
    out = decoded(
      await run.readRewindPoint(() =>
        rewindPoint.executeWithOptions({ ...ARCHIVE_ACTIVITY_OPTIONS, summary: `rewind point #${toSeq}` }, [
          { index, toSeq, budgetFromSeq: agent.budgetStartSeq },
        ]),
      ),
      'a rewind point',
    );
  } catch (err) {
    const failure = toAgentFailure(err);
    throw ApplicationFailure.create({ type: failure.code, message: `Could not read the archived entry #${toSeq}: ${failure.message}`, nonRetryable: true });
  }
  if (!out.ok) throw ApplicationFailure.create({ type: 'BAD_REWIND_POINT', message: out.reason, nonRetryable: true });
  try {
    return run.rewind(request, out.state);
  } catch (err) {
    if (err instanceof LivecontextError) throw ApplicationFailure.create({ type: err.code, message: err.message, nonRetryable: true });
    throw err;
  }
}
