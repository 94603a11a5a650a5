/**
 * How a stdio MCP server's output is cut into messages: one JSON-RPC message a line, as the SDK's
 * ReadBuffer does, but a line longer than the bound does not end the connection. The SDK's buffer throws
 * past 10 MB and its transport then closes — killing a server that did nothing worse than answer a call
 * with 50 MB, and reporting it as a crash. Here the long line is skipped to its end (never held whole),
 * and when it is the answer to one of our requests (its id is at its start or its end, where JSON-RPC
 * puts it), that request gets an error saying how large the answer was. The server keeps running.
 */
import { deserializeMessage } from '@modelcontextprotocol/sdk/shared/stdio.js';
import { ErrorCode, type JSONRPCMessage } from '@modelcontextprotocol/sdk/types.js';

/** The largest message read from an MCP server (the SDK's own stdio default). */
export const MCP_MAX_MESSAGE_BYTES = 10 * 1024 * 1024;

/** The `data` of the error a request gets when its answer was too large (how callTool recognises it). */
export interface MessageTooLargeData {
  livecontextMessageTooLarge: true;
  bytes: number;
  limit: number;
}

export function isMessageTooLarge(data: unknown): data is MessageTooLargeData {
  return !!data && typeof data === 'object' && (data as MessageTooLargeData).livecontextMessageTooLarge === true;
}

const KEEP = 1024; // bytes kept of an oversized line's start and end, to find its id
const ID = String.raw`(-?\d+|"(?:[^"\\]|\\.)*")`;
const JSONRPC = String.raw`"jsonrpc"\s*:\s*"2\.0"\s*,\s*`;
/** A response (has `result` or `error`), its id among its first keys. */
const RESPONSE_HEAD = new RegExp(String.raw`^\s*\{\s*(?:${JSONRPC})?(?:"id"\s*:\s*${ID}\s*,\s*)?(?:${JSONRPC})?"(?:result|error)"\s*:`);
/** The id as the response's last key. */
const ID_AT_END = new RegExp(String.raw`"id"\s*:\s*${ID}\s*(?:,\s*"jsonrpc"\s*:\s*"2\.0"\s*)?\}\s*$`);

export class BoundedReadBuffer {
  private parts: Buffer[] = [];
  private size = 0;
  private ready: Array<string | JSONRPCMessage> = [];
  private skipping?: { bytes: number; head: Buffer; tail: Buffer };

  constructor(
    private readonly maxBytes = MCP_MAX_MESSAGE_BYTES,
    /** Told of every oversized line; `answered`: a request got the error in its place. */
    private readonly onOversized?: (bytes: number, answered: boolean) => void,
  ) {}

  append(chunk: Buffer): void {
    let rest = chunk;
    for (let nl = rest.indexOf(10); nl !== -1; nl = rest.indexOf(10)) {
      this.take(rest.subarray(0, nl));
      this.endLine();
      rest = rest.subarray(nl + 1);
    }
    this.take(rest);
  }

  readMessage(): JSONRPCMessage | null {
    const next = this.ready.shift();
    if (next === undefined) return null;
    return typeof next === 'string' ? deserializeMessage(next) : next;
  }

  clear(): void {
    this.parts = [];
    this.size = 0;
    this.ready = [];
    this.skipping = undefined;
  }

  private take(piece: Buffer): void {
    if (!piece.length) return;
    const s = this.skipping;
    if (s) {
      s.bytes += piece.length;
      s.tail = piece.length >= KEEP ? Buffer.from(piece.subarray(-KEEP)) : Buffer.concat([s.tail, piece]).subarray(-KEEP);
      return;
    }
    this.parts.push(piece);
    this.size += piece.length;
    if (this.size > this.maxBytes) {
      const all = Buffer.concat(this.parts);
      this.skipping = { bytes: all.length, head: Buffer.from(all.subarray(0, KEEP)), tail: Buffer.from(all.subarray(-KEEP)) };
      this.parts = [];
      this.size = 0;
    }
  }

  private endLine(): void {
    const s = this.skipping;
    if (s) {
      this.skipping = undefined;
      const head = RESPONSE_HEAD.exec(s.head.toString('utf8'));
      const raw = head ? (head[1] ?? ID_AT_END.exec(s.tail.toString('utf8'))?.[1]) : undefined;
      this.onOversized?.(s.bytes, raw !== undefined);
      if (raw === undefined) return;
      const data: MessageTooLargeData = { livecontextMessageTooLarge: true, bytes: s.bytes, limit: this.maxBytes };
      const id = JSON.parse(raw) as string | number;
      this.ready.push({
        jsonrpc: '2.0',
        id,
        error: { code: ErrorCode.InternalError, message: `the answer is ${s.bytes} bytes, more than the ${this.maxBytes} an MCP message may have here`, data },
      });
      return;
    }
    const line = Buffer.concat(this.parts).toString('utf8').replace(/\r$/, '');
    this.parts = [];
    this.size = 0;
    if (line.trim()) this.ready.push(line);
  }
}
