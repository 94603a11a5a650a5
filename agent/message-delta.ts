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

interface DeltaBase {
  /** Strictly increasing within one stream. */
  seq: number;
}

export type MessageDelta = DeltaBase &
  (
    | { kind: 'start'; modelId: string; requestId?: string }
    | { kind: 'text'; text: string }
    | { kind: 'thinking'; text: string; signature?: string }
    | { kind: 'tool_call_start'; toolCallId: string; toolName: string }
    | { kind: 'tool_call_args'; toolCallId: string; argsTextDelta: string }
    | { kind: 'tool_call_end'; toolCallId: string }
    | { kind: 'usage'; usage: TokenUsage }
    | { kind: 'done'; finishReason: FinishReason }
    | { kind: 'error'; code: string; message: string; retryable: boolean; retryAfterMs?: number }
  );

/** A delta before it is numbered (Omit distributed over the union). */
export type UnnumberedDelta = MessageDelta extends infer D ? (D extends unknown ? Omit<D, 'seq'> : never) : never;

/** Helper for models: numbers deltas as they are produced. */
export class DeltaSequencer {
  private seq = 0;
  next(delta: UnnumberedDelta): MessageDelta {
    this.seq += 1;
    return { ...delta, seq: this.seq } as MessageDelta;
  }
}
