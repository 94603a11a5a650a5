/**
 * The sealArchive activity: the agent's oldest working entries, `fromSeq`…`toSeq`, written as one
 * immutable segment (with its term index) to the archive in the blob store, and — when the agent's list
 * of references is full — older references folded into a manifest. The entries come the way a model
 * call's do (the entry cache, fed in-process or by the `entries` query), so no payload carries them;
 * the workflow gets back only the references. Writing is idempotent: a retry writes the same segment.
 */
import { ApplicationFailure, Context } from '@temporalio/activity';
import type { ArchiveStore } from '../common/archive/index';
import type { EntryCache } from './entry-cache';
import type { SealArchiveInput, SealArchiveOutput } from './types';

export function createSealArchive(deps: { entries: EntryCache; archive: ArchiveStore }) {
  return async function sealArchive(input: SealArchiveInput): Promise<SealArchiveOutput> {
    const ctx = Context.current();
    const entries = await deps.entries.range(ctx.client, input.agentId, input.runId, input.fromSeq - 1, input.toSeq);
    const whole = entries.length === input.toSeq - input.fromSeq + 1 && entries[0]?.seq === input.fromSeq && entries.at(-1)?.seq === input.toSeq;
    if (!whole) {
      // The agent no longer holds them (sealed by another attempt's run, or a reset): nothing to write.
      throw ApplicationFailure.nonRetryable(
        `The agent's entries ${input.fromSeq}–${input.toSeq} are not all in its working set (got ${entries.length}).`,
        'ARCHIVE_ENTRIES_GONE',
      );
    }
    const ref = await deps.archive.writeSegment({ before: input.before, entries });
    const manifestKey = input.fold ? await deps.archive.writeManifest(input.fold.segments, input.fold.previous) : undefined;
    return { ref, ...(manifestKey ? { manifestKey } : {}) };
  };
}
