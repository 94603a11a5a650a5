/**
 * One MCP server, connected on demand and kept open for the worker's life. A connection that closes (a
 * stdio server that died, an HTTP session that ended) is dropped, and the next call connects again — for
 * stdio that restarts the server. A `url` server is tried with Streamable HTTP first, then legacy SSE,
 * as the SDK's documentation recommends. Every error message and log line is cut of the server's secrets.
 */
import type { Readable } from 'node:stream';
import { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { SSEClientTransport } from '@modelcontextprotocol/sdk/client/sse.js';
import { StdioClientTransport } from '@modelcontextprotocol/sdk/client/stdio.js';
import { StreamableHTTPClientTransport } from '@modelcontextprotocol/sdk/client/streamableHttp.js';
import type { Transport } from '@modelcontextprotocol/sdk/shared/transport.js';
import { type CallToolResult, ErrorCode, McpError, type Tool as McpToolDef } from '@modelcontextprotocol/sdk/types.js';
import { redactSecrets } from '../tools/redact-secrets';
import type { McpServerConfig } from './config';

export type { McpToolDef };

/** Where MCP start-up and connection events are logged (Temporal's Logger fits). */
export interface McpLogger {
  info(message: string, meta?: Record<string, unknown>): void;
  warn(message: string, meta?: Record<string, unknown>): void;
}

/** How long connecting (spawning, the initialize handshake) may take before the server counts as unreachable. */
export const MCP_CONNECT_TIMEOUT_MS = 30_000;
const STDERR_TAIL_CHARS = 2000;
const CLIENT_INFO = { name: 'livecontext', version: '0.1.0' };

export interface McpCallOptions {
  signal: AbortSignal;
  timeoutMs: number;
  onProgress?: (p: { progress: number; total?: number; message?: string }) => void;
}

export class McpServerConnection {
  private client?: Client;
  private connecting?: Promise<Client>;
  private stderrTail = '';
  private closed = false;
  /** The transport the last connection used: `stdio`, `streamable-http` or `sse`. */
  transportUsed?: string;
  /** The stdio server's process id while it runs (tests kill it). */
  pid?: number;

  constructor(
    readonly config: McpServerConfig,
    private readonly hooks: { log?: McpLogger; onToolsChanged?: (tools: McpToolDef[]) => void; connectTimeoutMs?: number } = {},
  ) {}

  get name(): string {
    return this.config.name;
  }

  /** Cuts this server's secrets (and the worker's) out of a text. */
  redact(text: string): string {
    return redactSecrets(redactSecrets(text, this.config.secrets));
  }

  async listTools(): Promise<McpToolDef[]> {
    const client = await this.connected();
    const tools: McpToolDef[] = [];
    let cursor: string | undefined;
    do {
      const page = await client.listTools(cursor ? { cursor } : undefined, { timeout: this.hooks.connectTimeoutMs ?? MCP_CONNECT_TIMEOUT_MS });
      tools.push(...page.tools);
      cursor = page.nextCursor;
    } while (cursor);
    return tools;
  }

  /** Calls a tool; an error that says the connection is gone drops it, so the next call reconnects. */
  async callTool(name: string, args: Record<string, unknown>, options: McpCallOptions): Promise<CallToolResult | { toolResult: unknown }> {
    const client = await this.connected();
    try {
      return (await client.callTool({ name, arguments: args }, undefined, {
        signal: options.signal,
        // The executor's own timeout comes first and cancels; this only keeps the SDK's 60 s default away.
        timeout: options.timeoutMs + 5_000,
        ...(options.onProgress
          ? { onprogress: (p: { progress: number; total?: number; message?: string }) => options.onProgress!({ progress: p.progress, total: p.total, message: p.message }) }
          : {}),
      })) as CallToolResult;
    } catch (err) {
      const message = this.describeFailure(err);
      if (connectionLost(err)) this.drop(client);
      throw new Error(message);
    }
  }

  /** Closes the connection (for stdio: ends the server process). Later calls fail. */
  async close(): Promise<void> {
    this.closed = true;
    const client = this.client ?? (await this.connecting?.catch(() => undefined));
    this.client = undefined;
    await client?.close().catch(() => undefined);
  }

  private connected(): Promise<Client> {
    if (this.closed) return Promise.reject(new Error(`The MCP server "${this.name}" is closed (the worker is shutting down).`));
    if (this.client) return Promise.resolve(this.client);
    this.connecting ??= this.connect().finally(() => (this.connecting = undefined));
    return this.connecting;
  }

  private async connect(): Promise<Client> {
    const config = this.config;
    try {
      if (config.transport === 'stdio') return await this.open(this.stdioTransport(config), 'stdio');
      const url = new URL(config.url);
      const requestInit = { headers: config.headers };
      if (config.transport === 'sse') return await this.open(new SSEClientTransport(url, { requestInit }), 'sse');
      if (config.transport === 'http') return await this.open(new StreamableHTTPClientTransport(url, { requestInit }), 'streamable-http');
      try {
        return await this.open(new StreamableHTTPClientTransport(url, { requestInit }), 'streamable-http');
      } catch (first) {
        try {
          return await this.open(new SSEClientTransport(url, { requestInit }), 'sse');
        } catch {
          throw first; // the Streamable HTTP error says more than the fallback's
        }
      }
    } catch (err) {
      const message = `Cannot reach the MCP server "${this.name}" (${this.where()}): ${this.describeFailure(err, 'connect')}`;
      this.hooks.log?.warn(message);
      throw new Error(message);
    }
  }

  private stdioTransport(config: Extract<McpServerConfig, { transport: 'stdio' }>): StdioClientTransport {
    this.stderrTail = '';
    const transport = new StdioClientTransport({ command: config.command, args: config.args, env: config.env, cwd: config.cwd, stderr: 'pipe' });
    // The server's own diagnostics: kept (short) to explain a failed start, never printed raw.
    (transport.stderr as Readable | null)?.on('data', (d: Buffer) => (this.stderrTail = (this.stderrTail + d.toString('utf8')).slice(-STDERR_TAIL_CHARS)));
    return transport;
  }

  private async open(transport: Transport, kind: string): Promise<Client> {
    const client = new Client(CLIENT_INFO, {
      capabilities: {},
      listChanged: {
        tools: {
          onChanged: (error, tools) => {
            if (this.client !== client) return; // a connection replaced since: its news is stale
            if (error) this.hooks.log?.warn(`MCP server "${this.name}": refreshing its tools failed: ${this.redact(error.message)}`);
            else if (tools) this.hooks.onToolsChanged?.(tools);
          },
        },
      },
    });
    const timeoutMs = this.hooks.connectTimeoutMs ?? MCP_CONNECT_TIMEOUT_MS;
    let timer: NodeJS.Timeout | undefined;
    try {
      await Promise.race([
        client.connect(transport, { timeout: timeoutMs }),
        new Promise((_, reject) => (timer = setTimeout(() => reject(new Error(`no answer within ${timeoutMs / 1000} s`)), timeoutMs))),
      ]);
    } catch (err) {
      await client.close().catch(() => undefined);
      throw err;
    } finally {
      clearTimeout(timer);
    }
    client.onclose = () => this.drop(client);
    this.client = client;
    this.transportUsed = kind;
    this.pid = transport instanceof StdioClientTransport ? (transport.pid ?? undefined) : undefined;
    this.hooks.log?.info(`MCP server "${this.name}" connected (${kind})`);
    return client;
  }

  private drop(client: Client): void {
    if (this.client !== client) return;
    this.client = undefined;
    this.pid = undefined;
    if (!this.closed) this.hooks.log?.warn(`MCP server "${this.name}" disconnected; the next call reconnects${this.config.transport === 'stdio' ? ' (restarting it)' : ''}`);
    void client.close().catch(() => undefined);
  }

  /** Where the server is, for messages: the command's name or the URL's origin (never headers or env). */
  private where(): string {
    const c = this.config;
    if (c.transport === 'stdio') return `command ${this.redact(c.command)}`;
    const u = new URL(c.url);
    return this.redact(`${u.protocol}//${u.host}${u.pathname}`);
  }

  private describeFailure(err: unknown, during: 'connect' | 'call' = 'call'): string {
    let message = err instanceof Error ? err.message : String(err);
    if (during === 'connect' && err instanceof McpError && err.code === ErrorCode.ConnectionClosed) {
      message = 'it closed the connection while starting (it exited?)';
    } else if (err instanceof McpError && err.code === ErrorCode.ConnectionClosed) {
      message = `the connection to the MCP server "${this.name}" closed during the call (the server may have crashed); the next call reconnects`;
    } else if (this.client && connectionLost(err)) {
      message = `Cannot reach the MCP server "${this.name}" (${this.where()}): ${message}; the next call reconnects`;
    }
    const stderr = this.stderrTail.trim().split('\n').slice(-3).join(' | ');
    if (this.config.transport === 'stdio' && stderr && !this.client) message += ` (server stderr: ${stderr})`;
    return this.redact(message);
  }
}

/** Errors after which this connection is of no use: closed, or the transport failed (not a JSON-RPC error from the server). */
function connectionLost(err: unknown): boolean {
  if (err instanceof McpError) return err.code === ErrorCode.ConnectionClosed;
  return !(err instanceof Error && err.name === 'AbortError');
}
