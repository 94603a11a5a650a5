/**
 * What the gateway remembers of an MCP client between requests, without keeping anything: /mcp is
 * stateless (any replica answers any request), so the client's name and whether it declared form
 * elicitation travel in the `Mcp-Session-Id` the gateway hands out at initialize, which MCP clients send
 * back on every later request. Only the client's own word is in it: a client that lies about its
 * capabilities only spoils its own replies.
 *
 * @example
 * const id = mcpClientToken({ capabilities: { elicitation: { form: {} } }, clientInfo: { name: 'claude' } });
 * readMcpClientToken(id); // { name: 'claude', elicitation: true }
 */
import { randomUUID } from 'node:crypto';

export interface McpClientInfo {
  /** The client's name from its initialize request (clientInfo.name), when it gave one. */
  name?: string;
  /** It declared form-mode elicitation: the server may ask its user (elicitation/create). */
  elicitation: boolean;
}

const PREFIX = 'lc1.';

/** Form elicitation is declared as `elicitation: {}` (before modes existed) or `elicitation: {form: {}}`. */
function declaresFormElicitation(capabilities: unknown): boolean {
  const e = (capabilities as { elicitation?: unknown } | undefined)?.elicitation;
  if (!e || typeof e !== 'object') return false;
  const modes = e as { form?: unknown; url?: unknown };
  return modes.form !== undefined || modes.url === undefined;
}

/** The session id for a client's initialize params: unique, and carrying its name and elicitation capability. */
export function mcpClientToken(init: { capabilities?: unknown; clientInfo?: { name?: unknown } }): string {
  const name = typeof init.clientInfo?.name === 'string' ? init.clientInfo.name.slice(0, 200) : undefined;
  const info: McpClientInfo = { ...(name ? { name } : {}), elicitation: declaresFormElicitation(init.capabilities) };
  return `${PREFIX}${randomUUID()}.${Buffer.from(JSON.stringify(info)).toString('base64url')}`;
}

/** The client info in a session id the gateway gave; undefined for none or any other. */
export function readMcpClientToken(sessionId: string | undefined): McpClientInfo | undefined {
  if (!sessionId?.startsWith(PREFIX)) return undefined;
  try {
    const raw = JSON.parse(Buffer.from(sessionId.slice(sessionId.lastIndexOf('.') + 1), 'base64url').toString('utf8')) as Record<string, unknown>;
    return { ...(typeof raw.name === 'string' ? { name: raw.name.slice(0, 200) } : {}), elicitation: raw.elicitation === true };
  } catch {
    return undefined;
  }
}
