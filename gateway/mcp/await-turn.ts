/**
 * Waiting, for at most a while, for the turn an input started. The agent's state is polled (a query)
 * and `waitForAnswer` is asked only once the turn is over, when it answers at once: a wait abandoned at
 * its cap would otherwise stay open in the agent as an unfinished update, and Temporal allows a workflow
 * only 10 of those, so a host that keeps timing out would end up blocking every other sender.
 */
import type { AgentClient } from '../../client/agent-client';
import type { TurnOutcome } from '../../agent/index';
import type { AgentStatus } from '../../workflows/messages';

export type TurnProgress =
  /** The turn is over: answered, ignored, failed, stopped or reset. */
  | { status: 'finished'; outcome: TurnOutcome }
  /** The agent waits for a person: approval of a tool call, a resolution of one whose outcome is unknown, or a retry after an error (maybe an earlier turn's). */
  | { status: 'blocked'; state: AgentStatus }
  /** Still queued or being worked on when the wait ended. */
  | { status: 'working'; state: AgentStatus };

export interface AwaitTurnOptions {
  /** How long to wait for the turn to finish; 0 looks once. */
  waitMs: number;
  /** How often the state is read while waiting (default 500 ms). */
  pollMs?: number;
  /** Ends the wait early (the request was cancelled). */
  signal?: AbortSignal;
  /** Called after each look while the turn goes on (e.g. to send MCP progress). */
  onWorking?: (state: AgentStatus, elapsedMs: number) => void | Promise<void>;
}

/**
 * Whether the turn of `inputSeq` is over as far as the state shows: a later input was taken (the agent
 * takes one only after answering), or this one was taken and the agent is idle again or stuck on an
 * error. Then `waitForAnswer` has its outcome at hand.
 */
export function turnIsOver(s: AgentStatus, inputSeq: number): boolean {
  if (s.consumedInputSeq > inputSeq) return true;
  return s.consumedInputSeq === inputSeq && (s.runState === 'WaitingInput' || s.blockedOn === 'error');
}

export async function awaitTurn(agents: AgentClient, agentId: string, inputSeq: number, options: AwaitTurnOptions): Promise<TurnProgress> {
  const started = Date.now();
  const pollMs = options.pollMs ?? 500;
  for (;;) {
    const state = await agents.state(agentId);
    if (turnIsOver(state, inputSeq)) return { status: 'finished', outcome: await agents.waitForAnswer(agentId, inputSeq) };
    if (state.blockedOn === 'approval' || state.blockedOn === 'unknown_outcome' || state.blockedOn === 'error' || state.stopping)
      return { status: 'blocked', state };
    const elapsed = Date.now() - started;
    if (elapsed + pollMs > options.waitMs || options.signal?.aborted) return { status: 'working', state };
    await options.onWorking?.(state, elapsed);
    await new Promise((r) => setTimeout(r, pollMs));
  }
}
