/**
 * The liveness watchdog of one model stream: a first token that never comes, or a stall mid-stream,
 * aborts the stream and leaves the failure the call throws (retried, never a message). Between checks
 * it calls `idle`, which keeps the activity alive while a slow first token is awaited.
 */
import { ApplicationFailure } from '@temporalio/common';
import type { ModelLiveness } from '../call-model';
import { ModelError } from '../models/provider-errors';

export class StreamWatchdog {
  /** Set when the watchdog aborted the stream: the failure to throw. */
  failure: ApplicationFailure | undefined;
  /** When the watchdog started: the request is being sent. */
  readonly startedAt = Date.now();
  private lastDeltaAt: number | undefined;
  private readonly timer: ReturnType<typeof setInterval>;

  constructor(liveness: ModelLiveness, model: string, abort: AbortController, idle: () => void) {
    this.timer = setInterval(
      () => {
        const now = Date.now();
        if (this.lastDeltaAt === undefined && now - this.startedAt > liveness.firstTokenTimeoutMs) {
          this.failure = ApplicationFailure.create({
            type: ModelError.FirstTokenTimeout,
            message: `No output from ${model} within ${liveness.firstTokenTimeoutMs} ms.`,
          });
        } else if (this.lastDeltaAt !== undefined && now - this.lastDeltaAt > liveness.stallTimeoutMs) {
          this.failure = ApplicationFailure.create({
            type: ModelError.Stalled,
            message: `${model} stalled for ${liveness.stallTimeoutMs} ms mid-stream.`,
          });
        }
        if (this.failure) abort.abort();
        else idle();
      },
      Math.min(1000, liveness.stallTimeoutMs / 4, liveness.firstTokenTimeoutMs / 4),
    );
  }

  /** A delta with content arrived (not the stream's start). */
  sawDelta(): void {
    this.lastDeltaAt = Date.now();
  }

  stop(): void {
    clearInterval(this.timer);
  }
}
