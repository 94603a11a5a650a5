/**
 * A turn as the client waits for it: the wait for an input's answer (server-side, no polling), `ask` as
 * one update for the whole turn, and the answer read from the run that gave it when a receipt names it.
 */
import { type Client, WorkflowUpdateStage } from '@temporalio/client';
import type { AgentInput, ModelOutputEntry, TurnOutcome } from '../agent/index';
import { type AskReceipt, type AskRequest, type TurnReceipt, askUpdate, entriesQuery, waitForAnswerUpdate } from '../workflows/messages';
import type { AgentCalls } from './agent-calls';
import { errorText, refusedUnaccepted, repeatIdempotent, retryWhile } from './retry';
import type { WorkerCheck } from './worker-check';

export class AgentTurns {
  constructor(
    private readonly client: Client,
    private readonly calls: AgentCalls,
    private readonly workers: WorkerCheck,
    /** AgentClientOptions.answersInline. */
    private readonly answersInline: boolean,
    /** The client's `send`: a worker older than the `ask` update gets send + waitForAnswer instead. */
    private readonly send: (agentId: string, input: AgentInput) => Promise<{ inputSeq: number }>,
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
    const request: AskRequest = { input, ...(this.answersInline ? { withAnswer: true } : {}) };
    let answered: AskReceipt;
    try {
      answered = await retryWhile(
        async () => {
          // Returns once accepted, or once refused (then result() throws the refusal).
          const accepted = await this.calls.change(agentId, (updateId) =>
            this.calls.handle(agentId).startUpdate(askUpdate, { args: [request], updateId, waitForStage: WorkflowUpdateStage.ACCEPTED }),
          );
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
      const { inputSeq } = await this.send(agentId, input);
      return this.waitForAnswer(agentId, inputSeq);
    }
    const { duplicate: _duplicate, ...receipt } = answered;
    if (receipt.status === 'continued') return this.waitForAnswer(agentId, receipt.inputSeq); // the turn goes on in the next run
    return this.outcomeOf(agentId, receipt);
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
