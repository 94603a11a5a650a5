/**
 * MessageDelta (seed 002): the provider-neutral stream part every Model emits, one discriminated
 * union. A stream starts with `start` and ends with exactly one `done` or `error`.
 */
import type { TokenUsage } from './entries';

/**
 * Why generation stopped: `stop` (natural end or stop sequence), `tool_calls` (the model wants tools),
 * `length` (max tokens reached), `content_filter` (provider refused), `other`.
 */
export type FinishReason = 'stop' | 'tool_calls' | 'length' | 'content_filter' | 'other';

/**
 * The `usage` payload (seed 002): cumulative for the call. `totalTokens` is the provider's total when
 * it reports one, else input + output. History keeps only TokenUsage: the total is derivable.
 */
export type StreamUsage = TokenUsage & { totalTokens: number };

interface DeltaBase {
  /** Strictly increasing within one stream. */
  seq: number;
  /** ISO-8601 wall-clock time the adapter produced the delta; for observers and latency, not for the agent's clock. */
  timestamp: string;
  /**
   * The provider's own stream events this delta was made from, plus any before it that made no delta
   * of their own; over a whole stream every event appears once. Only when the stream was asked for
   * them (`StreamOptions.providerRaw`): never assembled into a message, never in history.
   */
  providerRaw?: unknown[];
}

export type MessageDelta = DeltaBase &
  (
    | { kind: 'start'; modelId: string; requestId?: string }
    | { kind: 'text'; text: string }
    | { kind: 'thinking'; text: string; signature?: string }
    | { kind: 'tool_call_start'; toolCallId: string; toolName: string }
    | { kind: 'tool_call_args'; toolCallId: string; argsTextDelta: string }
    | { kind: 'tool_call_end'; toolCallId: string }
    | { kind: 'usage'; usage: StreamUsage }
    | { kind: 'done'; finishReason: FinishReason }
    | { kind: 'error'; code: string; message: string; retryable: boolean; retryAfterMs?: number }
  );

/** A delta as an adapter states it, before the sequencer numbers and stamps it (Omit distributed over the union). */
export type UnnumberedDelta = MessageDelta extends infer D ? (D extends unknown ? Omit<D, keyof DeltaBase> : never) : never;

/** Helper for models: numbers and timestamps deltas as they are produced, and carries provider events when asked. */
export class DeltaSequencer {
  private seq = 0;
  /** Provider events not yet attached to a delta; undefined when the caller did not ask for them. */
  private raw: unknown[] | undefined;

  constructor(options: { providerRaw?: boolean } = {}) {
    if (options.providerRaw) this.raw = [];
  }

  /** A provider event as received; it rides on the next delta (kept only when providerRaw was asked). */
  observe(event: unknown): void {
    this.raw?.push(event);
  }

  next(delta: UnnumberedDelta): MessageDelta {
    this.seq += 1;
    const out = { ...delta, seq: this.seq, timestamp: new Date().toISOString() } as MessageDelta;
    if (this.raw?.length) {
      out.providerRaw = this.raw;
      this.raw = [];
    }
    return out;
  }
}
