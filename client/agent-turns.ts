/**
 * A turn as the client waits for it: the wait for an input's answer (server-side, no polling), `ask` as
 * one update for the whole turn, and the answer read from the run that gave it when a receipt names it.
 */
import { type Client, WorkflowUpdateStage } from '@temporalio/client';
import type { AgentInput, ModelOutputEntry, TurnOutcome } from '../agent/index';
import {
  type AskAccepted,
  type AskReceipt,
  type AskRequest,
  type TurnReceipt,
  askedInputQuery,
  askUpdate,
  entriesQuery,
  waitForAnswerUpdate,
} from '../workflows/messages';
import type { AgentCalls } from './agent-calls';
import { errorText, refusedUnaccepted, repeatIdempotent, retryWhile } from './retry';
import type { WorkerCheck } from './worker-check';

/** How long an ask waited for to its completion counts among the agent's updates in flight (AgentCalls.change). */
const COMPLETION_WAIT_HOLD_MS = 1000;

export class AgentTurns {
  constructor(
    private readonly client: Client,
    private readonly calls: AgentCalls,
    private readonly workers: WorkerCheck,
    /** AgentClientOptions.answersInline. */
    private readonly answersInline: boolean,
    /** The client's `send`: a worker older than the `ask` update gets send + waitForAnswer instead. */
    private readonly send: (agentId: string, input: AgentInput) => Promise<{ inputSeq: number; duplicate?: true }>,
  ) {}

  /** Waits (server-side, no polling) until the agent has finished its turn for `inputSeq`. */
  async waitForAnswer(agentId: string, inputSeq: number): Promise<TurnOutcome> {
    await this.workers.beforeCall(agentId);
    for (;;) {
      const request = { inputSeq, ...(this.answersInline ? { withAnswer: true } : {}) };
      const receipt = await this.calls.update(
        (updateId) => this.calls.handle(agentId).executeUpdate(waitForAnswerUpdate, { args: [request], updateId }),
        repeatIdempotent,
      );
      if (receipt.status === 'continued') continue; // the agent moved to a new run; the same wait goes on there
      return this.outcomeOf(agentId, receipt);
    }
  }

  /**
   * One `ask` update for the whole turn: accepted with the input (exactly once, like `send`), completed
   * with the turn's receipt — half the updates and one workflow task fewer than send + waitForAnswer.
   * The wait after acceptance is only a poll, repeated freely. A worker older than the `ask` update
   * refuses it unaccepted; then the two updates do the same.
   */
  async askInOneUpdate(agentId: string, input: AgentInput): Promise<TurnOutcome> {
    const { duplicate: _duplicate, ...outcome } = await this.askTracked(agentId, input, false).outcome;
    return outcome;
  }

  /**
   * `askInOneUpdate`, for a caller that follows the turn before it ends (a chat, an event stream):
   * `accepted()` says which input the ask took — one query, asked only when called, no history event —
   * and `outcome` how its turn ended (`duplicate` when the input's idempotency key was seen before).
   * `followed` false (askInOneUpdate): nobody waits for the acceptance, so the update is sent to be waited
   * for to its completion — one request per turn, where acceptance and then a poll for the outcome are two
   * (the server answers at acceptance anyway if the turn outlasts its long poll; then the poll follows).
   */
  askTracked(agentId: string, input: AgentInput, followed = true): TrackedAsk {
    const request: AskRequest = { input, ...(this.answersInline ? { withAnswer: true } : {}) };
    let acceptedAs!: (how: { updateId: string } | { sent: AskAccepted }) => void;
    const acceptance = new Promise<{ updateId: string } | { sent: AskAccepted }>((resolve) => (acceptedAs = resolve));
    const outcome = (async (): Promise<TurnOutcome & { duplicate?: true }> => {
      let answered: AskReceipt;
      try {
        answered = await retryWhile(
          async () => {
            // Returns once accepted (followed) or completed, or once refused (then result() throws the refusal).
            // A wait to completion counts among the agent's updates in flight only briefly: it holds back no one.
            const waitForStage = followed ? WorkflowUpdateStage.ACCEPTED : (WorkflowUpdateStage.COMPLETED as typeof WorkflowUpdateStage.ACCEPTED); // the SDK's startUpdate takes any stage (executeUpdate sends COMPLETED through it)
            let sentId = '';
            const accepted = await this.calls
              .change(
                agentId,
                (updateId) => this.calls.handle(agentId).startUpdate(askUpdate, { args: [request], updateId: (sentId = updateId), waitForStage }),
                followed ? undefined : COMPLETION_WAIT_HOLD_MS,
              )
              .catch((err) => {
                // The wait to completion broke off (the connection dropped, a deadline passed): if the agent
                // accepted the ask, its outcome is polled as after an acceptance; if not, the error stands.
                if (followed || !sentId || !repeatIdempotent(err) || refusedUnaccepted(err)) throw err;
                return this.calls.handle(agentId).getUpdateHandle<AskReceipt>(sentId);
              });
            acceptedAs({ updateId: accepted.updateId });
            // A refusal that proves the update was never accepted (UnprocessedUpdate) is not repeated here:
            // the handle would give the same rejection again. It ends this attempt; the next one asks anew.
            return retryWhile(
              () => accepted.result(),
              (err) => (refusedUnaccepted(err)?.freshId ? undefined : repeatIdempotent(err)?.backoff),
            );
          },
          (err) => (refusedUnaccepted(err)?.freshId ? refusedUnaccepted(err)?.backoff : undefined),
        );
      } catch (err) {
        if (!/No registered handler for update: ask\b/.test(errorText(err))) throw err;
        const sent = await this.send(agentId, input);
        acceptedAs({ sent });
        return { ...(await this.waitForAnswer(agentId, sent.inputSeq)), ...(sent.duplicate ? { duplicate: true as const } : {}) };
      }
      const { duplicate, ...receipt } = answered;
      // The turn goes on in the next run when `continued`.
      const outcome = receipt.status === 'continued' ? await this.waitForAnswer(agentId, receipt.inputSeq) : await this.outcomeOf(agentId, receipt);
      return { ...outcome, ...(duplicate ? { duplicate } : {}) };
    })();
    const fromOutcome = () => outcome.then((o): AskAccepted => ({ inputSeq: o.inputSeq, ...(o.duplicate ? { duplicate: o.duplicate } : {}) }));
    let named: Promise<AskAccepted> | undefined;
    const accepted = () =>
      (named ??= Promise.race([acceptance, outcome.then(() => undefined)]).then(async (first) => {
        if (!first) return fromOutcome(); // over before it was known to be accepted: the outcome says
        if ('sent' in first) return first.sent;
        // Null once the ask has completed (its outcome says), or from a worker older than the query.
        const asked = await this.calls.query(agentId, () => this.calls.handle(agentId).query(askedInputQuery, first.updateId)).catch(() => null);
        return asked ?? fromOutcome();
      }));
    const taken = Promise.race([acceptance, outcome]).then(() => undefined);
    taken.catch(() => undefined); // its refusal is the outcome's: a caller that awaits only `outcome` must not meet it unhandled
    return { taken, accepted, outcome };
  }

  /** The outcome a receipt stands for: an answer by reference is read from the run that answered. */
  private async outcomeOf(agentId: string, receipt: TurnReceipt): Promise<TurnOutcome> {
    if (receipt.status === 'answered' && 'answerSeq' in receipt) {
      const { answerSeq, runId, ...rest } = receipt;
      return { ...rest, answer: await this.answerEntry(agentId, answerSeq, runId) };
    }
    return receipt;
  }

  /** The answer named by a receipt: from the current run, or from the run that answered if it was reset since. */
  private async answerEntry(agentId: string, seq: number, runId: string): Promise<ModelOutputEntry> {
    for (const handle of [this.calls.handle(agentId), this.client.workflow.getHandle(agentId, runId)]) {
      const page = await this.calls.query(agentId, () => handle.query(entriesQuery, { afterSeq: seq - 1, uptoSeq: seq, limit: 1 }));
      const entry = page.entries[0];
      if (entry?.seq === seq && entry.kind === 'model_output') return entry;
    }
    throw new Error(`Answer entry #${seq} of agent ${agentId} is no longer available.`);
  }
}

/** An `ask` under way (AgentTurns.askTracked). */
export interface TrackedAsk {
  /** Resolves once the agent took the input (no query; rejects as `outcome` does if it was refused). */
  taken: Promise<void>;
  /** The input the ask took (the first delivery's for a duplicate); one query when first called. */
  accepted(): Promise<AskAccepted>;
  outcome: Promise<TurnOutcome & { duplicate?: true }>;
}
