/**
 * The run control: what one run of the agent workflow knows beside the agent — what the message handlers
 * asked of the run loop (stop, reset, retry, interrupt, a tool decision) and what the loop decided
 * (continue as new). Handlers and loop share this one object, and change it only through its methods,
 * so each flag's transitions are in one place. Nothing here issues a Temporal command, except asking
 * the patches named beside it.
 *
 * @example
 * const run = new RunControl(agent, changed);
 * setHandler(stopSignal, (arg) => run.requestStop(stopReasonOf(arg)));
 * while (!run.ending()) { … }
 */
import type { CancellationScope } from '@temporalio/workflow';
import { type Agent, type ArchivedPointState, REWIND_ARCHIVE_CHANGE, REWIND_CHANGE, type RewindResult, unfinishedTurnStatus } from '../../agent/index';
import { RETRY_CLEARS_ERROR_PATCH, RETRY_ONLY_AT_STAKE_PATCH, UPDATE_BUDGET_PATCH } from '../run-changes';

/** Temporal refuses updates past about 2,000 per run (history.maxTotalUpdates): move on well before. */
export const UPDATE_BUDGET = 1500;

export class RunControl {
  private stopReasonValue: string | undefined;
  private resetValue = false;
  private continuingValue = false;
  private retryValue = false;
  private interruptValue: { by?: string } | undefined;
  private stepScope: CancellationScope | undefined;
  private interruptsValue = 0;
  private decisionsValue = 0;
  private rewoundValue = false;
  private rewindReads = 0;
  private updates = 0;

  constructor(
    private readonly agent: Agent,
    private readonly changed: (change: string) => boolean,
  ) {}

  /** Why the run stops (the stop signal, or a sub-agent that reported); undefined while it does not. */
  get stopReason(): string | undefined {
    return this.stopReasonValue;
  }
  get stopping(): boolean {
    return this.stopReasonValue !== undefined;
  }
  /** A reset was asked: the run ends, and a fresh one starts with the same configuration. */
  get resetRequested(): boolean {
    return this.resetValue;
  }
  /** The loop decided to continue as new (history too long): the run ends unless its state cannot be carried. */
  get continuing(): boolean {
    return this.continuingValue;
  }
  /** The run is ending: stopped, reset or continuing as new. */
  ending(): boolean {
    return this.stopReasonValue !== undefined || this.resetValue || this.continuingValue;
  }
  /** The status of a turn still unfinished when this run ends (for clients waiting on it). */
  unfinishedTurnStatus(): 'reset' | 'continued' | 'stopped' {
    return unfinishedTurnStatus({ reset: this.resetValue, continuing: this.continuingValue });
  }

  requestStop(reason: string): void {
    this.stopReasonValue = reason;
  }
  requestReset(): void {
    this.resetValue = true;
  }
  /** A sub-agent that reported its task's outcome has done its work. */
  reportedToParent(): void {
    this.stopReasonValue ??= 'reported its outcome to its parent';
  }
  /** A safe point found the history too long: this run moves on. */
  continueAsNew(): void {
    this.continuingValue = true;
  }
  /** A wait gave way (a timer, a sub-agent's answer): continue as new, unless the run ends anyway. */
  continueUnlessEnding(): void {
    if (!this.ending()) this.continuingValue = true;
  }
  /** The state cannot be carried (see stateCarrier): this run goes on. */
  stayInRun(): void {
    this.continuingValue = false;
  }

  /** Armed by a retry (or a new configuration); taken by the loop blocked on an error. */
  get retryRequested(): boolean {
    return this.retryValue;
  }
  requestRetry(explicit = false): void {
    if (this.agent.modelCallAtStake() || !this.changed(RETRY_ONLY_AT_STAKE_PATCH)) this.retryValue = true;
    // An explicit retry of a hit budget allows as much again (a no-op for any other error).
    if (explicit) this.agent.grantBudget();
    // A client that retries and then waits for the answer must see the turn in progress again, not the
    // error being retried (the loop clears it too, but only once it runs, after this activation's handlers).
    if (this.agent.lastError && this.changed(RETRY_CLEARS_ERROR_PATCH)) this.agent.clearError();
  }
  /** The loop woke from an error: the retry is taken and the error cleared. */
  retryTaken(): void {
    this.retryValue = false;
    this.agent.clearError();
  }

  /** An interrupt asked and not yet recorded. */
  get interruptRequest(): { by?: string } | undefined {
    return this.interruptValue;
  }
  /** Bumped when an interrupt is recorded, for the update that asked. */
  get interrupts(): number {
    return this.interruptsValue;
  }
  /** Asks for an interrupt: the step in flight is cancelled, and the loop has the agent record it. */
  requestInterrupt(by: string | undefined): void {
    this.interruptValue = by !== undefined ? { by } : {};
    this.stepScope?.cancel();
  }
  interruptRecorded(): void {
    this.interruptValue = undefined;
    this.interruptsValue++;
  }
  /** The scope the step in flight runs in (an interrupt cancels it). */
  stepStarts(scope: CancellationScope): CancellationScope {
    return (this.stepScope = scope);
  }
  stepEnded(): void {
    this.stepScope = undefined;
  }

  /** Bumped on every approve/deny, to wake a loop blocked on approval. */
  get decisions(): number {
    return this.decisionsValue;
  }
  decided(): void {
    this.decisionsValue++;
  }

  /**
   * The agent goes back to a point of its history (checked by the update's validator). The loop, at rest,
   * wakes to go on from there: a rewind to an input runs its turn again; one from an error or an approval
   * wait leaves neither behind.
   */
  rewind(request: unknown, archived?: ArchivedPointState): RewindResult {
    this.changed(REWIND_CHANGE); // asked only when a rewind is made: other histories stay as they were
    if (archived) this.changed(REWIND_ARCHIVE_CHANGE); // and this one only when it goes back into the archive
    const result = this.agent.rewind(request, archived);
    this.rewoundValue = true;
    this.decisionsValue++;
    return result;
  }
  /** A rewind into the archive is reading its point (see archived-rewind.ts): the loop at rest takes no input meanwhile. */
  get readingRewindPoint(): boolean {
    return this.rewindReads > 0;
  }
  /** Wraps the read of a rewind's archived point. */
  async readRewindPoint<T>(read: () => Promise<T>): Promise<T> {
    this.rewindReads++;
    try {
      return await read();
    } finally {
      this.rewindReads--;
    }
  }

  /** A rewind since the loop last rested: it wakes to look at the agent again. */
  get rewound(): boolean {
    return this.rewoundValue;
  }
  rewindTaken(): void {
    this.rewoundValue = false;
  }

  /** Counts the updates this run takes (see UPDATE_BUDGET). */
  counted<A extends unknown[], R>(handler: (...args: A) => R): (...args: A) => R {
    return (...args: A): R => {
      this.updates++;
      return handler(...args);
    };
  }
  /** This run took UPDATE_BUDGET updates: it continues as new at its next chance. */
  overUpdateBudget(): boolean {
    return this.updates >= UPDATE_BUDGET && this.changed(UPDATE_BUDGET_PATCH);
  }
}

/** The reason a stop signal gives (at most 1,000 characters), or 'stop requested'. */
export function stopReasonOf(arg: unknown): string {
  const reason = (arg as { reason?: unknown } | undefined)?.reason;
  return typeof reason === 'string' && reason ? reason.slice(0, 1000) : 'stop requested';
}
