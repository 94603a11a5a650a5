/**
 * A rewind's request and its checks (issue 30): the agent goes back to a valid point of its history
 * (travelPoint) and goes on from there. Only at rest: a model call, tools, timers or sub-agents in flight
 * would answer a turn that is no longer in force, so a working agent is refused (interrupt it first).
 */
import { z } from 'zod';
import { InputRejectedError } from './errors';

/** The workflow patch behind the rewind update (asked when a rewind is applied). */
export const REWIND_CHANGE = 'rewind-in-place';

export const RewindRequest = z.object({
  /** The entry to go back to: a turn's end or a model input (see travelPoint). */
  toSeq: z.number().int(),
  /** Who rewinds (free text, kept in the rewind entry). */
  by: z.string().max(200).optional(),
  /** Why (free text, kept in the rewind entry). */
  reason: z.string().max(2000).optional(),
});
export type RewindRequest = z.infer<typeof RewindRequest>;

/** What a rewind did: its entry, the point, and the run state the agent goes on in. */
export interface RewindResult {
  /** The rewind entry's seq. */
  seq: number;
  toSeq: number;
  /** `WaitingInput` after a turn's end; `PendingInput` after a model input (its turn runs again). */
  runState: string;
  /** Entries taken out of what is in force (the ones after `toSeq`, before the rewind). */
  rewound: number;
}

export function parseRewindRequest(raw: unknown): RewindRequest {
  const parsed = RewindRequest.safeParse(raw);
  if (!parsed.success) {
    throw new InputRejectedError('BAD_REWIND', parsed.error.issues.map((i) => `${i.path.join('.') || 'request'}: ${i.message}`).join('; '));
  }
  return parsed.data;
}
