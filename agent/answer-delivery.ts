/**
 * How a client waiting on a turn gets its answer: inline in the update's result, or by reference to the
 * answer's entry (which is in history already, as the model call's result). A reference costs the client
 * a query per turn (a billable action, and a workflow activation on the worker) to save a few hundred
 * bytes of history, so small answers come inline. Pure: the agent workflow asks the patches around it.
 */
import type { TurnOutcome } from './agent';

/** An answer of at most this many characters (as JSON) comes back in the update's result (INLINE_SMALL_ANSWER_PATCH). */
export const INLINE_ANSWER_CHARS = 4096;

type Answered = Extract<TurnOutcome, { status: 'answered' }>;

/** Whether the answer is small enough to come back inline. */
export function answerFitsInline(outcome: Answered): boolean {
  return JSON.stringify(outcome.answer).length <= INLINE_ANSWER_CHARS;
}

/** The outcome naming the answer's entry (in run `runId`) instead of copying it. */
export function answerByReference(outcome: Answered, runId: string): Omit<Answered, 'answer'> & { answerSeq: number; runId: string } {
  const { answer, ...rest } = outcome;
  return { ...rest, answerSeq: answer.seq, runId };
}

/** The status of a turn still unfinished when the run that took it ends: reset, continued in a new run, or stopped. */
export function unfinishedTurnStatus(run: { reset: boolean; continuing: boolean }): 'reset' | 'continued' | 'stopped' {
  return run.reset ? 'reset' : run.continuing ? 'continued' : 'stopped';
}
