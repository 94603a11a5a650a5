/**
 * The rewindPoint activity: for a rewind to an archived entry, reads the segment holding it and returns
 * what the agent goes on from (the instruction, widget states, newest compaction and day usage at that
 * entry; see agent/archive.ts archivedPointState) — or why the entry is not a valid point. Workflow code
 * never reads a segment; this answer is small whatever the archive's size.
 */
import { ApplicationFailure } from '@temporalio/activity';
import { type ArchiveIndex, type ArchivedPointState, archivedPointState, travelPoint, withoutArchivedRewound } from '../agent/index';
import type { ArchiveStore } from '../common/archive/index';

export interface RewindPointInput {
  index: ArchiveIndex;
  toSeq: number;
  /** Entries up to it no longer count against day budgets (the agent's budgetFromSeq). */
  budgetFromSeq: number;
}

export type RewindPointOutput = { ok: true; state: ArchivedPointState } | { ok: false; reason: string };

/** Earlier segments read for the day's usage, at most (a day of calls rarely spans more). */
const DAY_SEGMENTS = 8;

export function createRewindPoint(deps: { archive: ArchiveStore }) {
  return async function rewindPoint(input: RewindPointInput): Promise<RewindPointOutput> {
    const refs = await deps.archive.allSegments(input.index);
    const at = refs.findIndex((r) => r.fromSeq <= input.toSeq && input.toSeq <= r.toSeq);
    if (at < 0) throw ApplicationFailure.nonRetryable(`No archived segment holds entry #${input.toSeq}.`, 'ARCHIVE_SEGMENT_MISSING');
    const segment = await deps.archive.readSegment(refs[at]);
    const point = travelPoint(withoutArchivedRewound(input.index, segment.entries), input.toSeq);
    if (!point.ok) return { ok: false, reason: point.reason };
    const day = segment.entries.find((e) => e.seq === input.toSeq)?.timestamp.slice(0, 10);
    const earlier: (typeof segment.entries)[] = [];
    for (let i = at - 1; i >= 0 && earlier.length < DAY_SEGMENTS; i--) {
      const entries = (await deps.archive.readSegment(refs[i])).entries;
      earlier.push(entries);
      if (entries[0]?.timestamp.slice(0, 10) !== day) break; // the day starts in this one
    }
    return { ok: true, state: archivedPointState(input.index, segment, input.toSeq, input.budgetFromSeq, earlier) };
  };
}
