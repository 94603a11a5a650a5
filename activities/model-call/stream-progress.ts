/**
 * Where a streaming call's partial output goes. With the worker's stream endpoint, the partial message
 * is published there and heartbeats only say where and keep the call alive; without one, every heartbeat
 * carries it. It never becomes a history entry.
 */
import type { Context } from '@temporalio/activity';
import type { AssembledMessage, MessageAssembler } from '../../agent/index';
import type { PartialOutput } from '../call-model';
import type { StreamChannel } from '../stream-channel/stream-server';

const PARTIAL_MAX_CHARS = 16 * 1024;
/** On the stream endpoint, output is published at most this often (a snapshot parses tool arguments). */
const PUBLISH_MS = 50;
/** On the stream endpoint, the first heartbeat names the stream once the call has run this long (see the constructor). */
const NAME_STREAM_AFTER_MS = 100;
/** On the stream endpoint, a liveness heartbeat every this fraction of the heartbeat timeout. */
const LIVENESS_FRACTION = 0.6;

export class StreamProgress {
  private partialAt = Date.now(); // a call that ends within 100 ms sends no heartbeat at all
  // The stream endpoint's path: the first heartbeat says where the deltas are, later ones only keep
  // the call alive (with the partial output then, for readers that cannot reach the endpoint), every
  // LIVENESS_FRACTION of the heartbeat timeout: a few per call, however long the answer.
  private readonly channel;
  private readonly local: boolean;
  private readonly livenessMs: number;
  private beatAt = 0;
  /** The stream endpoint: when output was last published, and a publish waiting for PUBLISH_MS to pass. */
  private publishedAt = 0;
  private publishTimer: ReturnType<typeof setTimeout> | undefined;
  private readonly nameTimer: ReturnType<typeof setTimeout> | undefined;

  constructor(
    private readonly ctx: Context,
    streamChannel: StreamChannel | undefined,
    private readonly assembler: MessageAssembler,
    private readonly model: string,
    /** The turn wants a typed answer (see partialOutput). */
    private readonly typed: boolean,
    /** When the request was sent. */
    private readonly startedAt: number,
  ) {
    // A local activity (`modelCalls: 'local'`) cannot heartbeat and is no pending activity of the workflow's,
    // so no reader could find its stream: it publishes nothing, and its answer arrives whole.
    this.local = ctx.info.isLocal;
    this.channel = this.local ? undefined : streamChannel?.open(ctx.info.attempt);
    this.livenessMs = Math.max(1000, LIVENESS_FRACTION * (ctx.info.heartbeatTimeoutMs ?? 10_000));
    // The heartbeat that names the stream goes out NAME_STREAM_AFTER_MS after the request, token or not: a
    // call that ends sooner costs no heartbeat, and readers of a longer one (the gateway) find its stream
    // while the provider is still working on its first token, so that token reaches them as it is published.
    if (this.channel) {
      this.nameTimer = setTimeout(() => this.beatAt || this.beat(true), Math.max(0, startedAt + NAME_STREAM_AFTER_MS - Date.now()));
      this.nameTimer.unref?.();
    }
  }

  /** No delta for a while (the watchdog's tick): keep the call alive. */
  idle(): void {
    if (this.local) return;
    if (this.channel) this.beat(false);
    else this.ctx.heartbeat(); // keep the activity alive while waiting for a slow first token
  }

  /** A delta was consumed. */
  delta(): void {
    if (this.local) return;
    if (this.channel) return this.publishSoon();
    // The snapshot parses tool arguments; building it at most every 100 ms keeps long streams linear.
    if (Date.now() - this.partialAt >= 100) {
      this.partialAt = Date.now();
      this.ctx.heartbeat(partialOutput(this.assembler.snapshot(), this.ctx.info, this.model, this.typed));
    }
  }

  /**
   * On the stream endpoint (which costs no action): the output now if none went out in the last
   * PUBLISH_MS — the first token at once —, else once PUBLISH_MS has passed, so no delta waits for the next.
   */
  private publishSoon(): void {
    if (this.publishTimer) return;
    const wait = this.publishedAt + PUBLISH_MS - Date.now();
    if (wait <= 0) return this.publish();
    this.publishTimer = setTimeout(() => this.publish(), wait);
    this.publishTimer.unref?.();
  }

  private publish(): void {
    clearTimeout(this.publishTimer);
    this.publishTimer = undefined;
    this.publishedAt = Date.now();
    this.channel!.publish(() => this.snapshot()); // made only if someone reads the stream
  }

  /** The stream ended, however: readers get the whole streamed text before the end; the answer itself comes from history. */
  end(): void {
    clearTimeout(this.nameTimer);
    clearTimeout(this.publishTimer);
    if (this.channel) {
      this.channel.publish(() => this.snapshot());
      this.channel.end();
    }
  }

  private snapshot() {
    return { ...partialOutput(this.assembler.snapshot(), this.ctx.info, this.model, this.typed), channel: this.channel!.location };
  }

  private beat(force: boolean): void {
    if (!force && Date.now() - this.beatAt < this.livenessMs) return;
    this.beatAt = Date.now();
    this.ctx.heartbeat(this.snapshot());
  }
}

/**
 * `typed`: the turn wants a typed answer, whose text is left out: it is JSON for a program, and what is
 * recorded (repaired, normalised, perhaps re-asked) need not continue what streamed.
 */
function partialOutput(m: AssembledMessage, call: { attempt: number; activityId: string }, model: string, typed: boolean): PartialOutput {
  const tail = (s: string) => (s.length > PARTIAL_MAX_CHARS ? s.slice(-PARTIAL_MAX_CHARS) : s);
  const text = typed ? '' : m.contents.join('');
  return {
    attempt: call.attempt,
    model,
    text: tail(text),
    textChars: text.length,
    callId: call.activityId,
    thinking: tail(m.thinking ?? ''),
    toolCalls: m.toolCalls.map((c) => ({ name: c.toolName, arguments: tail(c.rawArguments) })),
  };
}
