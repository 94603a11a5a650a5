/** A gateway in this test process, on a free loopback port, over the dev server of the test run. */
import type { AgentClient } from '../../client/agent-client';
import { type RunningGateway, serveGateway } from '../../gateway/serve-gateway';
import { tokensFromEnv } from '../../gateway/tokens';

export interface TestGateway extends RunningGateway {
  /** fetch against the gateway with JSON in and out; `token` sends it as a bearer token. */
  request(
    method: string,
    path: string,
    body?: unknown,
    options?: { token?: string; headers?: Record<string, string> },
  ): Promise<{ status: number; body: any; headers: Headers }>; // eslint-disable-line @typescript-eslint/no-explicit-any -- tests read any JSON;
}

export async function startTestGateway(
  agents: AgentClient,
  options: { fullToken?: string; readToken?: string; corsOrigins?: string[] } = {},
): Promise<TestGateway> {
  const tokens = tokensFromEnv({ LIVECONTEXT_GATEWAY_TOKEN: options.fullToken, LIVECONTEXT_GATEWAY_READ_TOKEN: options.readToken });
  const gateway = await serveGateway({ agents, tokens, port: 0, host: '127.0.0.1', corsOrigins: options.corsOrigins, log: () => {} });
  return {
    ...gateway,
    async request(method, path, body, o = {}) {
      const headers: Record<string, string> = { ...(o.headers ?? {}) };
      // As a well-behaved client: every change says JSON, even without a body (see gateway/request-guard).
      if (body !== undefined || !['GET', 'HEAD'].includes(method)) headers['content-type'] ??= 'application/json';
      if (o.token) headers.authorization = `Bearer ${o.token}`;
      const res = await fetch(gateway.url + path, {
        method,
        headers,
        body: body === undefined ? undefined : typeof body === 'string' ? body : JSON.stringify(body),
      });
      const text = await res.text();
      let parsed: unknown = text;
      try {
        parsed = text ? JSON.parse(text) : undefined;
      } catch {
        // not JSON: the text itself
      }
      return { status: res.status, body: parsed, headers: res.headers };
    },
  };
}
