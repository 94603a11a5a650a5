/**
 * Tool call ids for one streamed message. Providers identify a call within a stream by its index, and
 * give it an id the next request refers to; compatible servers send ids that are empty, or the same for
 * several calls of one message. Seed 002's assembler refuses a second call under an id it has seen, so
 * an adapter takes every id through here: a usable one is kept, any other replaced by a fresh one.
 */
import { randomBytes } from 'node:crypto';

export class StreamToolCallIds {
  private readonly used = new Set<string>();

  /**
   * `raw` when it is a non-empty string not used yet in this message, else a new id: `fallback` and a
   * random part, so that it cannot be guessed (a call waiting for approval is approved by its id).
   */
  idFor(raw: unknown, fallback: string): string {
    let id = typeof raw === 'string' && raw.trim() ? raw : `${fallback}_${randomBytes(8).toString('hex')}`;
    while (this.used.has(id)) id = `${fallback}_${randomBytes(8).toString('hex')}`;
    this.used.add(id);
    return id;
  }
}
