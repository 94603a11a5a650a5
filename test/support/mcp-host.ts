/** An MCP host for tests: the SDK's own Client over Streamable HTTP against a gateway's /mcp. */
import { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { StreamableHTTPClientTransport } from '@modelcontextprotocol/sdk/client/streamableHttp.js';
import { eventually } from './temporal';

/** Connects (initialize) to `${gatewayUrl}/mcp`, with `token` as its bearer token if given. */
export async function connectMcp(gatewayUrl: string, token?: string): Promise<Client> {
  const client = new Client({ name: 'livecontext-test-host', version: '1.0.0' });
  const headers: Record<string, string> = token ? { Authorization: `Bearer ${token}` } : {};
  await client.connect(new StreamableHTTPClientTransport(new URL(`${gatewayUrl}/mcp`), { requestInit: { headers } }));
  return client;
}

export interface ToolAnswer {
  isError: boolean;
  /** The text parts, joined by newlines. */
  text: string;
  structured: Record<string, unknown> | undefined;
}

export async function callTool(client: Client, name: string, args: Record<string, unknown>): Promise<ToolAnswer> {
  const result = await client.callTool({ name, arguments: args });
  const content = (result.content ?? []) as Array<{ type: string; text?: string }>;
  return {
    isError: result.isError === true,
    text: content.flatMap((c) => (c.type === 'text' && c.text !== undefined ? [c.text] : [])).join('\n'),
    structured: result.structuredContent as Record<string, unknown> | undefined,
  };
}

/** get_state for `inputSeq`, asked again until its turn is answered (within 30 s); `what` names it in the timeout. */
export function answeredState(client: Client, agentId: string, inputSeq: number, what: string): Promise<ToolAnswer> {
  return eventually(
    async () => {
      const r = await callTool(client, 'get_state', { agent_id: agentId, input_seq: inputSeq });
      return (r.structured?.turn as { status?: string } | undefined)?.status === 'answered' ? r : undefined;
    },
    30_000,
    what,
  );
}
