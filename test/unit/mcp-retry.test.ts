import { parseMcpConfig } from '../../activities/mcp/config';
import { McpCallError, mcpRetryPolicy } from '../../activities/mcp/mcp-retry';
import type { McpToolDef } from '../../activities/mcp/server-connection';
import { ToolTimeoutError, isRetryable } from '../../activities/tools/tool-retry';

const def = (name: string, annotations?: McpToolDef['annotations']): McpToolDef => ({
  name,
  inputSchema: { type: 'object' },
  ...(annotations ? { annotations } : {}),
});
const failure = (reason: ConstructorParameters<typeof McpCallError>[1]) => new McpCallError('x', reason);

describe('MCP retry settings in the mcpServers configuration', () => {
  test('per server and per tool; the tool wins field by field; bad values are refused naming the field', () => {
    const [server] = parseMcpConfig({
      docs: {
        url: 'http://localhost:1/mcp',
        retry: { maxAttempts: 4, initialIntervalMs: 10 },
        tools: { search: { retry: { maxAttempts: 2, retryOn: ['timeout'] } } },
      },
    });
    expect(server).toMatchObject({ retry: { maxAttempts: 4, initialIntervalMs: 10 }, tools: { search: { retry: { maxAttempts: 2 } } } });
    const search = mcpRetryPolicy(def('search'), server);
    expect(search).toMatchObject({ maxAttempts: 2, initialIntervalMs: 10 });
    expect(isRetryable(search, new ToolTimeoutError('slow'))).toBe(true);
    expect(isRetryable(search, failure('timeout'))).toBe(true);
    expect(isRetryable(search, failure('unreachable'))).toBe(false); // the list replaces the defaults
    expect(() => parseMcpConfig({ a: { command: 'x', retry: { maxAttempts: 0 } } })).toThrow(/mcpServers\.a\.retry: maxAttempts must be/);
    expect(() => parseMcpConfig({ a: { command: 'x', retry: { retryOn: ['sometimes'] } } })).toThrow(/mcpServers\.a\.retry\.retryOn\.0/);
    expect(() => parseMcpConfig({ a: { command: 'x', tools: { t: { retries: 3 } } } })).toThrow(/mcpServers\.a\.tools\.t/);
  });

  test('defaults: a call never sent is retried for any tool; a lost connection only for read-only or idempotent ones; answers never', () => {
    const write = mcpRetryPolicy(def('write'), {});
    const read = mcpRetryPolicy(def('read', { readOnlyHint: true }), {});
    expect(isRetryable(write, failure('unreachable'))).toBe(true);
    expect(isRetryable(write, failure('connection_lost'))).toBe(false);
    expect(isRetryable(read, failure('connection_lost'))).toBe(true);
    for (const p of [write, read]) {
      expect(isRetryable(p, failure('timeout'))).toBe(false);
      expect(isRetryable(p, new ToolTimeoutError('slow'))).toBe(false);
      expect(isRetryable(p, failure('tool_error'))).toBe(false);
      expect(isRetryable(p, failure('server_error'))).toBe(false);
      expect(isRetryable(p, new Error('unreachable'))).toBe(false);
    }
    expect(failure('connection_lost').attemptKind).toBe('mcp_connection_lost');
  });
});
