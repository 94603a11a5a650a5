/**
 * Where one turn of an agent is, read from the agent's state and the turn's outcome (TurnOutcome, the
 * `turnOutcome` query): one pure mapping that every protocol door (A2A tasks, MCP tasks, AG-UI runs)
 * turns into its own status words, so they cannot disagree on what a turn is doing. With the phase come
 * the turn's open waits (agent/waits.ts), each with the id any door answers it by.
 *
 * @example
 * turnPhase(await agents.state(id), 3, await agents.finishedTurn(id, 3));
 * // { phase: 'waiting', waits: [{ waitId: 'approval-12-call_1', kind: 'approval', toolName: 'deploy', … }] }
 */
import type { OpenWait, TurnOutcome } from '../agent/index';
import type { AgentStatus } from '../workflows/messages';

/**
 * - `queued`: the input waits behind an earlier turn;
 * - `working`: the turn runs (or moved to a new run of the agent: `continued`);
 * - `waiting`: the turn waits on a person: a tool call's approval or the resolution of an unknown outcome (`waits`);
 * - `blocked`: a model call failed and a person can retry it (`retry`), so the turn is not over;
 * - the rest end the turn, named after its outcome: `answered`, `asked` (it ended with a question, `waits`
 *   holds it while nobody answered), `interrupted`, `failed` (error), `ignored`, `stopped`, `reset`, `archived`.
 */
export type TurnPhaseName =
  'queued' | 'working' | 'waiting' | 'blocked' | 'answered' | 'asked' | 'interrupted' | 'failed' | 'ignored' | 'stopped' | 'reset' | 'archived';

export interface TurnPhase {
  phase: TurnPhaseName;
  /** The turn's open waits, in the order the agent met them (empty when it waits on nobody). */
  waits: OpenWait[];
  /** The turn's outcome, once it has one. */
  outcome?: TurnOutcome;
}

/** Phases after which nothing more happens to the turn. */
export const TURN_OVER: ReadonlySet<TurnPhaseName> = new Set(['answered', 'asked', 'interrupted', 'failed', 'ignored', 'stopped', 'reset', 'archived']);

/**
 * The phase of input `inputSeq`'s turn. `outcome` is what the `turnOutcome` query answered for it
 * (undefined while the turn is queued or running); `status` is the agent's `state`.
 */
export function turnPhase(status: AgentStatus, inputSeq: number, outcome: TurnOutcome | undefined): TurnPhase {
  const waits = status.waits ?? [];
  if (outcome) {
    // Blocked by an error on this very turn: a person can still retry it, so it is not over.
    if (outcome.status === 'error' && status.blockedOn === 'error' && status.consumedInputSeq === inputSeq) return { phase: 'blocked', waits: [], outcome };
    switch (outcome.status) {
      case 'asked':
        return { phase: 'asked', waits: waits.filter((w) => w.kind === 'question' && w.waitId === outcome.waitId), outcome };
      case 'continued':
        return { phase: 'working', waits: [], outcome };
      case 'error':
        return { phase: 'failed', waits: [], outcome };
      default:
        return { phase: outcome.status, waits: [], outcome };
    }
  }
  if (status.consumedInputSeq < inputSeq) return { phase: 'queued', waits: [] };
  if (status.consumedInputSeq > inputSeq) return { phase: 'working', waits: [] }; // over, but its outcome was not read
  if (status.blockedOn === 'approval' || status.blockedOn === 'unknown_outcome')
    return { phase: 'waiting', waits: waits.filter((w) => w.kind === 'approval' || w.kind === 'unknown_outcome') };
  if (status.blockedOn === 'error') return { phase: 'blocked', waits: [] };
  return { phase: 'working', waits: [] };
}
