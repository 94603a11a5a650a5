/**
 * The agent workflow's input handlers: the input signal, and the sendInput, ask and waitForAnswer
 * updates with the receipts clients wait for. Registered before the run's first await, in this order.
 */
import { condition, currentUpdateInfo, log, setHandler, workflowInfo } from '@temporalio/workflow';
import {
  type Agent,
  answerByReference,
  answerFitsInline,
  hasIdempotencyKey,
  IDEMPOTENCY_PRINTS_CHANGE,
  InputRejectedError,
  type TurnOutcome,
} from '../../agent/index';
import {
  type AskAccepted,
  type AskReceipt,
  askedInputQuery,
  askUpdate,
  inputSignal,
  sendInputUpdate,
  type TurnReceipt,
  waitForAnswerUpdate,
} from '../messages';
import { ANSWER_BY_REFERENCE_PATCH, INLINE_SMALL_ANSWER_PATCH } from '../run-changes';
import { refusing } from './failures';
import type { RunControl } from './run-control';

export function registerInputHandlers(agent: Agent, run: RunControl, changed: (change: string) => boolean): void {
  // An input with an idempotency key keeps its fingerprint (asked for only then: most inputs have none).
  const keyed = (raw: unknown) => ({ since: changed, fingerprint: hasIdempotencyKey(raw) && changed(IDEMPOTENCY_PRINTS_CHANGE) });
  setHandler(inputSignal, (raw) => {
    try {
      const { inputSeq } = agent.enqueueInput(raw, keyed(raw));
      log.debug('input accepted (signal)', { category: 'History', inputSeq });
    } catch (err) {
      // A signal cannot be refused, and throwing here would fail the workflow task: log and drop.
      log.warn('input signal dropped', { category: 'History', reason: (err as Error).message });
    }
  });

  const checkInput = (raw: unknown) => {
    if (run.stopping) throw new InputRejectedError('AGENT_STOPPING', 'The agent is stopping.');
    agent.checkInput(raw); // so a refused input never reaches the handler
  };
  setHandler(
    sendInputUpdate,
    run.counted((raw) => agent.enqueueInput(raw, keyed(raw))),
    { validator: refusing(checkInput) },
  );

  /** Waits for the turn of `inputSeq` to be over (or this run to end) and says how it ended. */
  const receipt = async (inputSeq: number, withAnswer?: boolean): Promise<TurnReceipt> => {
    let outcome: TurnOutcome | undefined;
    await condition(() => (outcome = agent.turnOutcome(inputSeq)) !== undefined || run.ending());
    if (!outcome) return { inputSeq, status: run.unfinishedTurnStatus() };
    if (outcome.status !== 'answered' || withAnswer || !changed(ANSWER_BY_REFERENCE_PATCH)) return outcome;
    if (answerFitsInline(outcome) && changed(INLINE_SMALL_ANSWER_PATCH)) return outcome;
    // The answer entry is in history already (the model call's result): name it, do not copy it.
    return answerByReference(outcome, workflowInfo().runId);
  };
  // Running asks by update id (memory only: replay rebuilds it, and a run's asks end with the run).
  const asked = new Map<string, AskAccepted>();
  setHandler(askedInputQuery, (updateId) => asked.get(updateId) ?? null);
  setHandler(
    askUpdate,
    run.counted(async ({ input, withAnswer }): Promise<AskReceipt> => {
      const { inputSeq, duplicate } = agent.enqueueInput(input, keyed(input));
      const updateId = currentUpdateInfo()?.id;
      if (updateId) asked.set(updateId, { inputSeq, ...(duplicate ? { duplicate } : {}) });
      try {
        return { ...(await receipt(inputSeq, withAnswer === true)), ...(duplicate ? { duplicate } : {}) };
      } finally {
        if (updateId) asked.delete(updateId);
      }
    }),
    { validator: refusing((request) => checkInput((request as { input?: unknown } | undefined)?.input)) },
  );

  setHandler(
    waitForAnswerUpdate,
    run.counted(({ inputSeq, withAnswer }) => receipt(inputSeq, withAnswer)),
    {
      validator: refusing((request) => {
        const inputSeq = (request as { inputSeq?: unknown } | undefined)?.inputSeq;
        if (typeof inputSeq !== 'number' || !Number.isInteger(inputSeq) || inputSeq < 1 || inputSeq >= agent.nextInputSeq) {
          throw new InputRejectedError('UNKNOWN_INPUT', `No input #${String(inputSeq)} was accepted by this agent.`);
        }
      }),
    },
  );
}
