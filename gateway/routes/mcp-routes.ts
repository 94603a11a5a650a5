/**
 * `/mcp`: the agents as an MCP server over Streamable HTTP. Stateless: each POST gets a new server and
 * transport (no session id), so any gateway replica answers any request and nothing is kept between
 * requests. GET (a server-to-client stream) and DELETE (ending a session) need sessions and get 405,
 * which MCP clients take as "not offered". The `Mcp-Session-Id` given at initialize only carries what the
 * client declared (mcp-client-token.ts), and answers to the server's own requests (elicitation) are
 * handed to the server that asked (server-request-relay.ts).
 */
import { WebStandardStreamableHTTPServerTransport } from '@modelcontextprotocol/sdk/server/webStandardStreamableHttp.js';
import type { Context, Hono } from 'hono';
import type { GatewayEnv, GatewayOptions } from '../gateway-app';
import { createAgentsMcpServer } from '../mcp/agents-mcp-server';
import { mcpClientToken, readMcpClientToken } from '../mcp/mcp-client-token';
import { deliverRelayedAnswers, relayServerRequests } from '../mcp/server-request-relay';
import { DEFAULT_WAIT_CAP_MS } from '../mcp/tool-context';
import { ORIGIN_REFUSED, originAllowed } from '../request-guard';

export interface McpRouteOptions extends Pick<GatewayOptions, 'agents' | 'corsOrigins' | 'log'> {
  /** The longest send_message waits for an answer (default DEFAULT_WAIT_CAP_MS). */
  mcpWaitCapMs?: number;
  /** How often a waiting send_message reads the agent's state (default 500 ms). */
  mcpPollMs?: number;
}

const jsonRpcError = (c: Context<GatewayEnv>, status: 403 | 405, message: string) =>
  c.json({ jsonrpc: '2.0', error: { code: -32000, message }, id: null }, status);

export function mountMcpRoutes(app: Hono<GatewayEnv>, options: McpRouteOptions): void {
  const log = options.log ?? ((m: string) => console.error(m));
  const notOffered = (c: Context<GatewayEnv>) => {
    c.header('Allow', 'POST');
    return jsonRpcError(c, 405, 'This MCP server is stateless: it offers no session stream; send requests with POST.');
  };
  app.get('/mcp', notOffered);
  app.delete('/mcp', notOffered);
  app.post('/mcp', async (c) => {
    // The MCP transport spec asks servers to check Origin (DNS rebinding, pages on other sites); MCP
    // hosts are not browsers and send none. The same rule as every other change (request-guard).
    if (!originAllowed(c.req.header('origin'), c.req.header('host'), options.corsOrigins)) {
      return jsonRpcError(c, 403, ORIGIN_REFUSED);
    }
    const body: unknown = await c.req.raw
      .clone()
      .json()
      .catch(() => undefined);
    if (deliverRelayedAnswers(body)) return c.body(null, 202);
    const client = readMcpClientToken(c.req.header('mcp-session-id'));
    const server = createAgentsMcpServer({
      agents: options.agents,
      scope: c.var.scope,
      waitCapMs: options.mcpWaitCapMs ?? DEFAULT_WAIT_CAP_MS,
      pollMs: options.mcpPollMs ?? 500,
      log,
      ...(client ? { client } : {}),
    });
    const transport = new WebStandardStreamableHTTPServerTransport({ sessionIdGenerator: undefined });
    const forgetRequests = relayServerRequests(transport);
    transport.onclose = forgetRequests;
    await server.connect(transport);
    // A client that goes away ends its tool calls' waits (their extra.signal) and frees the server.
    c.req.raw.signal.addEventListener('abort', () => void server.close().catch(() => {}), { once: true });
    const response = await transport.handleRequest(c.req.raw);
    const init = (Array.isArray(body) ? body : [body]).find((m) => (m as { method?: unknown } | undefined)?.method === 'initialize') as
      { params?: { capabilities?: unknown; clientInfo?: { name?: unknown } } } | undefined;
    if (!init || !response.ok) return response;
    const headers = new Headers(response.headers);
    headers.set('mcp-session-id', mcpClientToken(init.params ?? {}));
    return new Response(response.body, { status: response.status, statusText: response.statusText, headers });
  });
}
