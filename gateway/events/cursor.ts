/**
 * Where an event stream stands, as the SSE `id` of every frame: all a gateway needs to continue the
 * stream for a client that reconnects with `Last-Event-ID`, on this gateway or any other. Nothing else is
 * kept between polls that a resumed stream would need.
 *
 *   <lastSeq>[.<part>][~<msgBaseSeq>~<callId>~<attempt>~<offset>][~t<runId>][~x]
 *
 * - `lastSeq`: every event of the history entries up to this sequence number was sent;
 * - `.part`: so were the first `part` events of entry lastSeq+1 (an entry makes several events, and a
 *   connection can drop between them);
 * - `~msgBaseSeq~callId~attempt~offset`: an assistant message is streaming from the running model call
 *   `callId` (its Temporal activity id), attempt `attempt`, which started after entry `msgBaseSeq`;
 *   `offset` characters of its text were sent;
 * - `~t<runId>`: an AG-UI run is open (the per-agent stream's turn `turn-<inputSeq>`, or, in an AG-UI
 *   POST, `run` once the run's own input was reached);
 * - `~x`: that run was ended with RUN_ERROR (the agent is blocked); the next events start a new run.
 */
export interface StreamingMessage {
  /** The history's last sequence number when the message started streaming. */
  baseSeq: number;
  /** The model call's activity id ('' from workers that do not report it). */
  callId: string;
  attempt: number;
  /** Characters of the message's text sent so far. */
  offset: number;
}

export interface OpenRun {
  runId: string;
  /** RUN_ERROR was sent for it. */
  errored: boolean;
}

export interface Cursor {
  seq: number;
  /** Events of entry seq+1 already sent. */
  part: number;
  streaming?: StreamingMessage;
  run?: OpenRun;
}

/** A cursor at the start of history or after entry `seq`. */
export const cursorAt = (seq: number): Cursor => ({ seq, part: 0 });

/** `~` separates fields, so it is escaped in the free-text ones (encodeURIComponent leaves it). */
const escape = (s: string) => encodeURIComponent(s).replace(/~/g, '%7E');

export function formatCursor(c: Cursor): string {
  let out = c.part ? `${c.seq}.${c.part}` : String(c.seq);
  const m = c.streaming;
  if (m) out += `~${m.baseSeq}~${escape(m.callId)}~${m.attempt}~${m.offset}`;
  if (c.run) out += `~t${escape(c.run.runId)}${c.run.errored ? '~x' : ''}`;
  return out;
}

const NAT = /^\d{1,15}$/;

/** The cursor a formatted id names, or null if it is not one (the client sent something else). */
export function parseCursor(text: string): Cursor | null {
  const fields = text.trim().split('~');
  const head = /^(\d{1,15})(?:\.(\d{1,6}))?$/.exec(fields.shift() ?? '');
  if (!head) return null;
  const cursor: Cursor = { seq: Number(head[1]), part: head[2] ? Number(head[2]) : 0 };
  if (fields.length >= 4 && NAT.test(fields[0])) {
    const [base, callId, attempt, offset] = fields.splice(0, 4);
    if (!NAT.test(base) || !NAT.test(attempt) || !NAT.test(offset)) return null;
    let decoded: string;
    try {
      decoded = decodeURIComponent(callId);
    } catch {
      return null;
    }
    cursor.streaming = { baseSeq: Number(base), callId: decoded, attempt: Number(attempt), offset: Number(offset) };
  }
  if (fields[0]?.startsWith('t')) {
    try {
      cursor.run = { runId: decodeURIComponent(fields.shift()!.slice(1)), errored: false };
    } catch {
      return null;
    }
    if (fields[0] === 'x') {
      cursor.run.errored = true;
      fields.shift();
    }
  }
  if (fields.length) return null;
  // Only a position a stream can have been at: a message streams from a call after entry baseSeq, so
  // baseSeq is at most seq (host writes may follow it); attempts count from 1; ids are short.
  const m = cursor.streaming;
  if (m && (m.baseSeq > cursor.seq || m.attempt < 1 || m.callId.length > 300)) return null;
  if (cursor.run && (cursor.run.runId === '' || cursor.run.runId.length > 300)) return null;
  return cursor;
}

/**
 * Whether the message a resumed cursor says is streaming is one the agent's model really streamed: the
 * call that produced the next output after the cursor (`next`), or, while none did, the call running now
 * (`partial`) — the same call, at that attempt or a later one. A cursor made up by a client names a
 * message this stream never started; continuing it would end a message (TEXT_MESSAGE_END) without a start.
 */
export function streamingIsReal(
  m: StreamingMessage,
  next: { callId: string; attempt: number } | undefined,
  partial: { callId?: string; attempt: number } | null,
): boolean {
  const by = next ?? (partial ? { callId: partial.callId ?? '', attempt: partial.attempt } : undefined);
  return by !== undefined && by.callId === m.callId && m.attempt <= by.attempt;
}
