/**
 * Requests the gateway's MCP server sends to a client mid-call (elicitation/create) on a stateless /mcp:
 * the request goes out on the tool call's own response stream, but the client POSTs its answer as a new
 * request, which a new server would not know. So each such request gets an id unique in this process,
 * and a POST that only carries answers to such ids is handed to the server that asked. An answer that
 * reaches another gateway replica is not found there: the asking call then waits out its timeout and
 * the wait stays open for the other doors.
 */
import { randomUUID } from 'node:crypto';
import type { Transport } from '@modelcontextprotocol/sdk/shared/transport.js';
import type { JSONRPCMessage } from '@modelcontextprotocol/sdk/types.js';

/** Relayed id → the transport that asked and the id its server gave the request. */
const pending = new Map<string, { transport: Transport; id: string | number }>();

const isRequest = (m: JSONRPCMessage): m is JSONRPCMessage & { id: string | number; method: string } => 'method' in m && 'id' in m;
const isResponse = (m: unknown): m is { id: string | number } =>
  typeof m === 'object' && m !== null && !('method' in m) && 'id' in m && ('result' in m || 'error' in m);

/** Gives the server's requests on `transport` process-wide ids; call before `server.connect`. Returns what forgets them. */
export function relayServerRequests(transport: Transport): () => void {
  const mine = new Set<string>();
  const forget = () => {
    for (const id of mine) pending.delete(id);
    mine.clear();
  };
  const send = transport.send.bind(transport);
  transport.send = (message, options) => {
    // A stateless transport carries one call: once it is answered, nothing it asked is waited for any more.
    if (isResponse(message)) forget();
    if (!isRequest(message)) return send(message, options);
    const relayed = `lc-${randomUUID()}`;
    pending.set(relayed, { transport, id: message.id });
    mine.add(relayed);
    return send({ ...message, id: relayed }, options);
  };
  return forget;
}

/** Hands a POST's body to the servers that asked, when it only answers relayed requests; false otherwise. */
export function deliverRelayedAnswers(body: unknown): boolean {
  const messages = Array.isArray(body) ? body : [body];
  if (messages.length === 0 || !messages.every((m) => isResponse(m) && pending.has(String(m.id)))) return false;
  for (const m of messages as Array<{ id: string | number }>) {
    const to = pending.get(String(m.id))!;
    pending.delete(String(m.id));
    to.transport.onmessage?.({ ...m, id: to.id } as JSONRPCMessage);
  }
  return true;
}
