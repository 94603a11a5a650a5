/**
 * The archive sealer: keeps the agent's working set bounded. When the working entries pass twice the
 * agent's working-set budget, the oldest whole turns are sealed into a segment of the archive by an
 * activity (activities/seal-archive.ts), and the agent drops them, keeping the segment's reference
 * (agent/archive.ts). Asked where the agent rests and before it continues as new, so a turn never waits
 * for it. The patch is asked only when a seal is due, so histories of smaller agents replay as they ran;
 * an agent from before it moves its old entries to the archive at its next rest or continue-as-new.
 */
import { log, proxyActivities, workflowInfo } from '@temporalio/workflow';
import type { createActivities } from '../../activities/index';
import {
  ARCHIVE_CHANGE,
  type Agent,
  DEFAULT_WORKING_SET_BYTES,
  FIRST_WORKING_SET_BYTES,
  SMALLER_WORKING_SET_CHANGE,
  emptyArchive,
  foldable,
} from '../../agent/index';
import { ARCHIVE_ACTIVITY_OPTIONS } from '../activity-options';
import { decoded } from './failures';

const { sealArchive } = proxyActivities<ReturnType<typeof createActivities>>(ARCHIVE_ACTIVITY_OPTIONS);

/** After a failed seal, the events to wait before trying again (the blob store may be away). */
const RETRY_AFTER_EVENTS = 200;

export function archiveSealer(agent: Agent, changed: (change: string) => boolean) {
  const { workflowId, runId } = workflowInfo();
  let failedAt: number | undefined;
  /** The seal due, if any; under the smaller default only once its patch says so, so older histories replay as they ran. */
  const due = () => {
    const configured = agent.config.workingSetBytes;
    const cut = agent.state.sealCandidate(configured ?? DEFAULT_WORKING_SET_BYTES);
    if (!cut || configured !== undefined || changed(SMALLER_WORKING_SET_CHANGE)) return cut;
    return agent.state.sealCandidate(FIRST_WORKING_SET_BYTES);
  };
  return {
    /** Seals one segment when one is due; true when it did (call again: more may be due). */
    async sealOne(): Promise<boolean> {
      if (failedAt !== undefined && workflowInfo().historyLength - failedAt < RETRY_AFTER_EVENTS) return false;
      const cut = due();
      if (!cut || !changed(ARCHIVE_CHANGE)) return false;
      const index = agent.state.archive ?? emptyArchive();
      const fold = foldable(index);
      try {
        const out = decoded(
          await sealArchive.executeWithOptions({ ...ARCHIVE_ACTIVITY_OPTIONS, summary: `archive ${cut.fromSeq}–${cut.toSeq}` }, [
            {
              agentId: workflowId,
              runId,
              fromSeq: cut.fromSeq,
              toSeq: cut.toSeq,
              before: { systemInstruction: index.systemInstruction, widgets: index.widgets },
              ...(fold.length ? { fold: { segments: fold, ...(index.manifest ? { previous: index.manifest.key } : {}) } } : {}),
            },
          ]),
          'an archive seal',
        );
        agent.archiveSealed(out.ref, fold.length && out.manifestKey ? { segments: fold, manifestKey: out.manifestKey } : undefined);
        failedAt = undefined;
        log.info('archived', { category: 'History', fromSeq: cut.fromSeq, toSeq: cut.toSeq, bytes: cut.bytes });
        return true;
      } catch (err) {
        failedAt = workflowInfo().historyLength;
        log.warn(`Could not archive entries ${cut.fromSeq}–${cut.toSeq}; the working set stays larger for now: ${(err as Error).message}`, {
          category: 'History',
        });
        return false;
      }
    },
    /** Seals every segment due (before continue-as-new: the new run carries only the working set). */
    async sealAll(): Promise<void> {
      while (await this.sealOne());
    },
  };
}
