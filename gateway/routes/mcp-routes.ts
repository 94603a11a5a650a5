/**
 * `/mcp`: the agents as an MCP server over Streamable HTTP. Stateless: each POST gets a new server and
 * transport (no session id), so any gateway replica answers any request and nothing is kept between
 * requests. GET (a server-to-client stream) and DELETE (ending a session) need sessions and get 405,
 * which MCP clients take as "not offered".
 */
import { WebStandardStreamableHTTPServerTransport } from '@modelcontextprotocol/sdk/server/webStandardStreamableHttp.js';
import type { Context, Hono } from 'hono';
import type { GatewayEnv, GatewayOptions } from '../gateway-app';
import { createAgentsMcpServer } from '../mcp/agents-mcp-server';
import { DEFAULT_WAIT_CAP_MS } from '../mcp/tool-context';

export interface McpRouteOptions extends Pick<GatewayOptions, 'agents' | 'corsOrigins' | 'log'> {
  /** The longest send_message waits for an answer (default DEFAULT_WAIT_CAP_MS). */
  mcpWaitCapMs?: number;
  /** How often a waiting send_message reads the agent's state (default 500 ms). */
  mcpPollMs?: number;
}

const LOOPBACK_HOSTS = new Set(['localhost', '127.0.0.1', '[::1]']);

/**
 * The MCP transport spec asks servers to check Origin against DNS rebinding: a web page on another site
 * whose name resolves to 127.0.0.1 could otherwise drive an open (token-less, loopback) gateway. MCP
 * hosts are not browsers and send no Origin; a browser's must be loopback or allowed by CORS.
 */
function originAllowed(origin: string | undefined, corsOrigins: readonly string[] | undefined): boolean {
  if (!origin) return true;
  if (corsOrigins?.includes('*') || corsOrigins?.includes(origin)) return true;
  try {
    return LOOPBACK_HOSTS.has(new URL(origin).hostname);
  } catch {
    return false;
  }
}

const jsonRpcError = (c: Context<GatewayEnv>, status: 403 | 405, message: string) => c.json({ jsonrpc: '2.0', error: { code: -32000, message }, id: null }, status);

export function mountMcpRoutes(app: Hono<GatewayEnv>, options: McpRouteOptions): void {
  const log = options.log ?? ((m: string) => console.error(m));
  const notOffered = (c: Context<GatewayEnv>) => {
    c.header('Allow', 'POST');
    return jsonRpcError(c, 405, 'This MCP server is stateless: it offers no session stream; send requests with POST.');
  };
  app.get('/mcp', notOffered);
  app.delete('/mcp', notOffered);
  app.post('/mcp', async (c) => {
    // Only an open gateway needs it: with tokens, a page on another site cannot present one.
    if (c.var.scope === 'open' && !originAllowed(c.req.header('origin'), options.corsOrigins)) {
      return jsonRpcError(c, 403, 'Origin not allowed.');
    }
    const server = createAgentsMcpServer({
      agents: options.agents,
      scope: c.var.scope,
      waitCapMs: options.mcpWaitCapMs ?? DEFAULT_WAIT_CAP_MS,
      pollMs: options.mcpPollMs ?? 500,
      log,
    });
    const transport = new WebStandardStreamableHTTPServerTransport({ sessionIdGenerator: undefined });
    await server.connect(transport);
    // A client that goes away ends its tool calls' waits (their extra.signal) and frees the server.
    c.req.raw.signal.addEventListener('abort', () => void server.close().catch(() => {}), { once: true });
    return transport.handleRequest(c.req.raw);
  });
}
