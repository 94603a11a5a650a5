/**
 * Reads model calls' partial output from the worker's stream endpoint (activities/stream-channel) for
 * the readers that used to poll heartbeats: the gateway's event streams and the chat. They still describe
 * the agent's workflow (not a billable action) to learn which call runs and where it streams; this
 * reader follows that stream over SSE and hands back its latest partial output. When the endpoint cannot
 * be reached, refuses the token or the stream lags behind the heartbeat, the heartbeat's partial output is
 * used: a side-channel failure only makes streaming coarser. The final answer always comes from history.
 */
import { readStreamSecret, streamToken } from './secret';

/** The part of a partial output this reader needs (activities/call-model.ts PartialOutput). */
export interface ChannelPartial {
  attempt: number;
  text: string;
  textChars?: number;
  channel?: { url: string; attempt: number };
}

/** A stream not asked about for this long is closed (its reader moved on). */
const IDLE_MS = 10_000;

interface Follow {
  latest: ChannelPartial | undefined;
  failed: boolean;
  ended: boolean;
  usedAt: number;
  abort: AbortController;
  /** Told at the stream's next change (new output, its end, or its failure): readers waiting to push it on. */
  waiters: Set<() => void>;
}

export class StreamChannelReader {
  private readonly follows = new Map<string, Follow>();

  private lookedAt = 0;

  /** `secret`: the shared stream secret (default: found as the worker left it, see secret.ts, looked for again every few seconds until found). */
  constructor(private secret?: Buffer) {}

  private secretNow(): Buffer | undefined {
    if (!this.secret && Date.now() - this.lookedAt > 5000) {
      this.lookedAt = Date.now();
      this.secret = readStreamSecret();
    }
    return this.secret;
  }

  /**
   * The freshest partial output of the call `heartbeat` describes: the stream endpoint's when it is
   * followed and at least as far as the heartbeat, else the heartbeat's own. Starts following on first sight.
   */
  latest<P extends ChannelPartial>(heartbeat: P | null): P | null {
    this.prune();
    const where = heartbeat?.channel;
    if (!heartbeat || !where || !this.secretNow() || where.attempt !== heartbeat.attempt) return heartbeat;
    let follow = this.follows.get(where.url);
    if (!follow) {
      follow = { latest: undefined, failed: false, ended: false, usedAt: Date.now(), abort: new AbortController(), waiters: new Set() };
      this.follows.set(where.url, follow);
      void this.follow(where.url, follow);
    }
    follow.usedAt = Date.now();
    const live = follow.latest as P | undefined;
    if (!live || follow.failed) return heartbeat;
    return chars(live) >= chars(heartbeat) ? live : heartbeat;
  }

  /** Whether `heartbeat`'s stream is being read from the endpoint right now (for tests and diagnostics). */
  following(heartbeat: ChannelPartial | null): boolean {
    const follow = heartbeat?.channel && this.follows.get(heartbeat.channel.url);
    return !!follow && !follow.failed && follow.latest !== undefined;
  }

  /**
   * Resolves at the next change of the followed stream `partial` names (new output, its end or failure),
   * so a reader passes output on as it arrives instead of at its next look; undefined when that stream is
   * not being followed live (a heartbeat's output only changes when the reader looks again).
   */
  nextChange(partial: ChannelPartial | null): Promise<void> | undefined {
    const follow = partial?.channel && this.follows.get(partial.channel.url);
    if (!follow || follow.failed || follow.ended) return undefined;
    return new Promise((resolve) => follow.waiters.add(resolve));
  }

  /** Stops following every stream. */
  close(): void {
    for (const follow of this.follows.values()) {
      follow.abort.abort();
      told(follow);
    }
    this.follows.clear();
  }

  private prune(): void {
    const now = Date.now();
    for (const [url, follow] of this.follows) {
      if (now - follow.usedAt < IDLE_MS) continue;
      follow.abort.abort();
      this.follows.delete(url);
      told(follow);
    }
  }

  private async follow(url: string, follow: Follow): Promise<void> {
    const key = url.slice(url.lastIndexOf('/') + 1);
    try {
      const res = await fetch(url, {
        headers: { authorization: `Bearer ${streamToken(this.secret!, key)}`, accept: 'text/event-stream' },
        signal: follow.abort.signal,
      });
      if (!res.ok || !res.body) throw new Error(`stream endpoint answered ${res.status}`);
      const decoder = new TextDecoder();
      let buffered = '';
      for await (const chunk of res.body as AsyncIterable<Uint8Array>) {
        buffered += decoder.decode(chunk, { stream: true });
        let at: number;
        while ((at = buffered.indexOf('\n\n')) >= 0) {
          const event = buffered.slice(0, at);
          buffered = buffered.slice(at + 2);
          if (/^event: end$/m.test(event)) {
            follow.ended = true;
            return;
          }
          const data = /^data: (.*)$/m.exec(event)?.[1];
          if (data) follow.latest = JSON.parse(data) as ChannelPartial;
        }
        told(follow);
      }
      if (!follow.ended) follow.failed = true; // cut off mid-call: the heartbeat's output from here
    } catch {
      follow.failed = true;
    } finally {
      told(follow);
    }
  }
}

/** Wakes whoever waits for `follow`'s next change. */
function told(follow: Follow): void {
  const waiters = [...follow.waiters];
  follow.waiters.clear();
  for (const wake of waiters) wake();
}

const chars = (p: ChannelPartial) => p.textChars ?? p.text.length;

/** One reader per process: the gateway's streams and the chat share their follows. */
export const sharedStreamReader = new StreamChannelReader();
