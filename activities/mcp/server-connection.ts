/**
 * One MCP server, connected on demand and kept open for the worker's life. A connection that closes (a
 * stdio server that died, an HTTP session that ended) is dropped, and the next call connects again — for
 * stdio that restarts the server. A server that answered is never restarted for what it answered: a
 * JSON-RPC error, a malformed or oversized result become a Failed result that says so, with the server's
 * own message. One that stops answering (a call timed out and a ping after it gets no answer) is. A `url`
 * server is tried with Streamable HTTP first, then legacy SSE, as the SDK's documentation recommends.
 * Listing tools is bounded (tool-limits.ts) and reads every page, also after tools/list_changed.
 * Every error message and log line is cut of the server's secrets.
 * The client takes form elicitation (a server's question to the user during a call): the question goes
 * to the call that is running on this connection (the one following its task, when the server names the
 * task), whose agent opens it as a wait (tools/elicit-through-agent.ts).
 */
import type { Readable } from 'node:stream';
import { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { SSEClientTransport } from '@modelcontextprotocol/sdk/client/sse.js';
import { StdioClientTransport } from '@modelcontextprotocol/sdk/client/stdio.js';
import { StreamableHTTPClientTransport } from '@modelcontextprotocol/sdk/client/streamableHttp.js';
import type { Transport } from '@modelcontextprotocol/sdk/shared/transport.js';
import {
  type CallToolResultSchema,
  type ElicitResult,
  ElicitRequestSchema,
  ErrorCode,
  McpError,
  type Tool as McpToolDef,
} from '@modelcontextprotocol/sdk/types.js';
import { z } from 'zod';
import { type Secret, redactSecrets, secretsIn } from '../tools/redact-secrets';
import { BoundedReadBuffer, MCP_MAX_MESSAGE_BYTES, isMessageTooLarge } from './bounded-read-buffer';
import type { McpServerConfig } from './config';
import { McpCallError, type McpFailureReason } from './mcp-retry';
import { formatBytes } from './result-text';
import { DEFAULT_MCP_LIST_LIMITS, type McpListLimits } from './tool-limits';

export type { McpToolDef };

/** Where MCP start-up and connection events are logged (Temporal's Logger fits). */
export interface McpLogger {
  info(message: string, meta?: Record<string, unknown>): void;
  warn(message: string, meta?: Record<string, unknown>): void;
}

/** How long connecting (spawning, the initialize handshake) may take before the server counts as unreachable. */
export const MCP_CONNECT_TIMEOUT_MS = 30_000;
/** How long a server whose call timed out has to answer a ping before it counts as hung (and is restarted). */
export const MCP_PING_TIMEOUT_MS = 10_000;
const STDERR_TAIL_CHARS = 2000;
const CLIENT_INFO = { name: 'livecontext', version: '0.1.0' };
/**
 * What tools/call may answer: anything (the SDK's own schema would fail the whole call, as if the server
 * had not answered, for one malformed block); mcpResultText reads it leniently and says what was wrong.
 */
const AnyResult = z.unknown() as unknown as typeof CallToolResultSchema;

/** Listing a server's tools went past a bound (tool-limits.ts); the message says which. */
export class McpListError extends Error {
  constructor(message: string) {
    super(message);
    this.name = new.target.name;
  }
}

/** The `_meta` key under which a server names the task a request of its belongs to (MCP tasks). */
const RELATED_TASK_META = 'io.modelcontextprotocol/related-task';

/** A server's form question during a call, as the call's asker gets it. */
export interface ElicitQuestion {
  message: string;
  requestedSchema: Record<string, unknown>;
}

/** A call running on the connection that can take its server's questions (elicitation). */
export interface McpAsker {
  /** The MCP task the call follows, once known: a question naming this task goes to this call. */
  taskId?: string;
  elicit(question: ElicitQuestion, signal: AbortSignal): Promise<ElicitResult>;
}

export interface McpCallOptions {
  signal: AbortSignal;
  timeoutMs: number;
  onProgress?: (p: { progress: number; total?: number; message?: string }) => void;
  /** The request's `_meta` (the SDK adds its progressToken beside it). */
  meta?: Record<string, unknown>;
  /** Takes the server's questions (elicitation) while the call runs; without it they are refused. */
  asker?: McpAsker;
}

export class McpServerConnection {
  private client?: Client;
  private connecting?: Promise<Client>;
  private stderrTail = '';
  private closed = false;
  private refreshing?: Promise<void>;
  private refreshAgain = false;
  /** The calls running now that take questions (see McpAsker). */
  private readonly askers = new Set<McpAsker>();
  /** The transport the last connection used: `stdio`, `streamable-http` or `sse`. */
  transportUsed?: string;
  /** The stdio server's process id while it runs (tests kill it). */
  pid?: number;

  constructor(
    readonly config: McpServerConfig,
    private readonly hooks: {
      log?: McpLogger;
      onToolsChanged?: (tools: McpToolDef[]) => void;
      connectTimeoutMs?: number;
      listLimits?: Partial<McpListLimits>;
    } = {},
  ) {}

  get name(): string {
    return this.config.name;
  }

  /** Cuts this server's secrets (and the worker's) out of a text. */
  redact(text: string): string {
    return redactSecrets(redactSecrets(text, this.config.secrets));
  }

  /** This server's secrets and the worker's, longest first. */
  secrets(): Secret[] {
    return [...this.config.secrets, ...secretsIn()].sort((a, b) => b.value.length - a.value.length);
  }

  /**
   * Every page of the server's tools, within the bounds of tool-limits.ts: a server that keeps giving a
   * `nextCursor` (or gives one it gave before), offers too many tools or takes too long fails with an
   * McpListError naming it, instead of holding up the worker.
   */
  async listTools(): Promise<McpToolDef[]> {
    const limits = { ...DEFAULT_MCP_LIST_LIMITS, ...this.hooks.listLimits };
    const deadline = Date.now() + limits.timeoutMs;
    const client = await this.connected();
    const tools: McpToolDef[] = [];
    const cursors = new Set<string>();
    let cursor: string | undefined;
    for (let pages = 0; ;) {
      const left = deadline - Date.now();
      const sofar = () => `${pages} page${pages === 1 ? '' : 's'}, ${tools.length} tools so far`;
      if (left <= 0) throw new McpListError(`listing its tools took more than ${limits.timeoutMs / 1000} s (${sofar()})`);
      if (pages >= limits.maxPages)
        throw new McpListError(`its tool list does not end: tools/list still gave a nextCursor after ${limits.maxPages} pages (${tools.length} tools so far)`);
      let page: Awaited<ReturnType<Client['listTools']>>;
      try {
        page = await client.listTools(cursor !== undefined ? { cursor } : undefined, {
          timeout: Math.min(left, this.hooks.connectTimeoutMs ?? MCP_CONNECT_TIMEOUT_MS),
        });
      } catch (err) {
        if (err instanceof McpError && err.code === ErrorCode.RequestTimeout && client.transport)
          throw new McpListError(`tools/list got no answer in time (${sofar()})`);
        throw err;
      }
      pages++;
      if (tools.length + page.tools.length > limits.maxTools)
        throw new McpListError(`it offers more than ${limits.maxTools} tools (${pages} page${pages === 1 ? '' : 's'})`);
      for (const tool of page.tools) tools.push(tool);
      cursor = page.nextCursor;
      if (!cursor) return tools;
      if (cursors.has(cursor)) throw new McpListError(`its tool list goes round in a circle: tools/list gave the same nextCursor twice (${sofar()})`);
      cursors.add(cursor);
    }
  }

  /**
   * Calls a tool and returns its raw result (mcpResultText reads it). A failure says what happened: the
   * server's JSON-RPC error (its code and message), an answer too large, no answer in time, or a
   * connection that closed; only the last (and a server that then does not answer a ping) costs the
   * connection, so the next call reconnects (for stdio: restarts the server).
   */
  async callTool(name: string, args: Record<string, unknown>, options: McpCallOptions): Promise<unknown> {
    const client = await this.connected().catch((err: Error) => {
      throw new McpCallError(err.message, this.closed ? 'other' : 'unreachable'); // the call was never sent
    });
    let result: unknown;
    if (options.asker) this.askers.add(options.asker);
    try {
      result = await client.callTool({ name, arguments: args, ...(options.meta ? { _meta: options.meta } : {}) }, AnyResult, {
        signal: options.signal,
        // The executor's own timeout comes first and cancels; this only keeps the SDK's 60 s default away.
        timeout: options.timeoutMs + 5_000,
        ...(options.onProgress
          ? {
              onprogress: (p: { progress: number; total?: number; message?: string }) =>
                options.onProgress!({ progress: p.progress, total: p.total, message: p.message }),
            }
          : {}),
      });
    } catch (err) {
      const { message, reason } = this.callFailure(client, err, options.signal);
      throw new McpCallError(message, reason);
    } finally {
      if (options.asker) this.askers.delete(options.asker);
    }
    // Over HTTP the answer arrives whole; it gets the same bound as a stdio message.
    if (jsonLongerThan(result, MCP_MAX_MESSAGE_BYTES)) throw new McpCallError(this.redact(tooLarge(this.name, undefined)), 'other');
    return result;
  }

  /**
   * Runs `call` on the connected client with callTool's handling of failures: for requests other than a
   * plain tools/call (a call made as an MCP task and the task followed, task-call.ts).
   */
  async withClient<T>(signal: AbortSignal, call: (client: Client) => Promise<T>, asker?: McpAsker): Promise<T> {
    const client = await this.connected().catch((err: Error) => {
      throw new McpCallError(err.message, this.closed ? 'other' : 'unreachable');
    });
    if (asker) this.askers.add(asker);
    try {
      return await call(client);
    } catch (err) {
      if (err instanceof McpCallError) throw err;
      const { message, reason } = this.callFailure(client, err, signal);
      throw new McpCallError(message, reason);
    } finally {
      if (asker) this.askers.delete(asker);
    }
  }

  /**
   * A server's question (elicitation/create): the call it belongs to answers it. MCP does not say which
   * call a server's request is for, except a task's (related-task): with no task named, it is the one call
   * running on this connection, and with several running the question is refused rather than shown to
   * the wrong agent's people. Only form mode: a URL question is refused (the capability says so).
   */
  private async elicit(params: Record<string, unknown>, signal: AbortSignal): Promise<ElicitResult> {
    if (params.mode === 'url') throw new McpError(ErrorCode.InvalidParams, 'livecontext answers form elicitation only');
    const related = (params._meta as Record<string, { taskId?: unknown } | undefined> | undefined)?.[RELATED_TASK_META]?.taskId;
    const askers = [...this.askers].filter((a) => related === undefined || a.taskId === related);
    if (askers.length !== 1) {
      const why = askers.length
        ? `${askers.length} calls are running on this connection and the question does not say which it is for`
        : 'no call that can ask its user is running on this connection';
      this.hooks.log?.warn(`MCP server "${this.name}" asked a question (elicitation) that was refused: ${why}`);
      throw new McpError(ErrorCode.InvalidRequest, `livecontext cannot ask this question: ${why}`);
    }
    return askers[0].elicit({ message: String(params.message ?? ''), requestedSchema: (params.requestedSchema as Record<string, unknown>) ?? {} }, signal);
  }

  /** Whether the server takes tools/call as a task (its `tasks.requests.tools.call` capability). */
  async takesToolTasks(): Promise<boolean> {
    const client = await this.connected().catch(() => undefined);
    return client?.getServerCapabilities()?.tasks?.requests?.tools?.call !== undefined;
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
      const message = `Cannot reach the MCP server "${this.name}" (${this.where()}): ${this.describeFailure(err)}`;
      this.hooks.log?.warn(message);
      throw new Error(message);
    }
  }

  private stdioTransport(config: Extract<McpServerConfig, { transport: 'stdio' }>): StdioClientTransport {
    this.stderrTail = '';
    const transport = new StdioClientTransport({ command: config.command, args: config.args, env: config.env, cwd: config.cwd, stderr: 'pipe' });
    // The SDK's reader closes the connection (ending the server) at a message over 10 MB; ours skips it.
    const internals = transport as unknown as { _readBuffer?: unknown };
    if (internals._readBuffer) {
      internals._readBuffer = new BoundedReadBuffer(MCP_MAX_MESSAGE_BYTES, (bytes, answered) =>
        this.hooks.log?.warn(
          `MCP server "${this.name}" sent a message of ${formatBytes(bytes)} (more than ${formatBytes(MCP_MAX_MESSAGE_BYTES)}); it was skipped${answered ? ' and its call failed' : ''}`,
        ),
      );
    }
    // The server's own diagnostics: kept (short) to explain a failed start, never printed raw.
    (transport.stderr as Readable | null)?.on('data', (d: Buffer) => (this.stderrTail = (this.stderrTail + d.toString('utf8')).slice(-STDERR_TAIL_CHARS)));
    return transport;
  }

  private async open(transport: Transport, kind: string): Promise<Client> {
    const client = new Client(CLIENT_INFO, {
      capabilities: { elicitation: { form: {} } },
      listChanged: {
        tools: {
          // Not the SDK's refresh: it reads only the first page of a paginated list.
          autoRefresh: false,
          onChanged: () => {
            if (this.client === client) this.refreshTools(); // a connection replaced since: its news is stale
          },
        },
      },
    });
    client.setRequestHandler(ElicitRequestSchema, (request, extra) => this.elicit(request.params as Record<string, unknown>, extra.signal));
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

  /** Lists the tools again after tools/list_changed; one listing at a time, and one more if news came meanwhile. */
  private refreshTools(): void {
    if (this.refreshing) {
      this.refreshAgain = true;
      return;
    }
    this.refreshing = (async () => {
      do {
        this.refreshAgain = false;
        try {
          const tools = await this.listTools();
          if (!this.closed) this.hooks.onToolsChanged?.(tools);
        } catch (err) {
          this.hooks.log?.warn(
            `MCP server "${this.name}": listing its tools after tools/list_changed failed, so it keeps its previous tools: ${this.redact((err as Error).message)}`,
          );
        }
      } while (this.refreshAgain && !this.closed);
    })().finally(() => (this.refreshing = undefined));
  }

  private drop(client: Client): void {
    if (this.client !== client) return;
    this.client = undefined;
    this.pid = undefined;
    if (!this.closed)
      this.hooks.log?.warn(`MCP server "${this.name}" disconnected; the next call reconnects${this.config.transport === 'stdio' ? ' (restarting it)' : ''}`);
    void client.close().catch(() => undefined);
  }

  /** After a call that got no answer: a server that does not answer a ping either is hung, and is dropped. */
  private checkAlive(client: Client): void {
    client.ping({ timeout: MCP_PING_TIMEOUT_MS }).catch(() => {
      if (this.client !== client) return;
      this.hooks.log?.warn(`MCP server "${this.name}" did not answer a ping after a call got no answer; closing the connection`);
      this.drop(client);
    });
  }

  /** Where the server is, for messages: the command's name or the URL's origin (never headers or env). */
  private where(): string {
    const c = this.config;
    if (c.transport === 'stdio') return `command ${this.redact(c.command)}`;
    const u = new URL(c.url);
    return this.redact(`${u.protocol}//${u.host}${u.pathname}`);
  }

  /** What went wrong with a call, in words; drops the connection only when it is gone or hung. */
  private callFailure(client: Client, err: unknown, signal: AbortSignal): { message: string; reason: McpFailureReason } {
    const closed = !client.transport || this.client !== client;
    let message: string;
    let reason: McpFailureReason = 'other';
    if (closed) {
      reason = 'connection_lost';
      // Protocol rejects every pending request with ConnectionClosed once the transport closed.
      message = `the connection to the MCP server "${this.name}" closed during the call (the server may have crashed); the next call reconnects${this.stderrNote()}`;
      this.drop(client);
    } else if (
      signal.aborted ||
      (err instanceof McpError && err.code === ErrorCode.RequestTimeout && (err.data as { timeout?: unknown } | undefined)?.timeout !== undefined)
    ) {
      message = `the MCP server "${this.name}" gave no answer in time; the request was cancelled`;
      reason = 'timeout';
      this.checkAlive(client);
    } else if (err instanceof McpError && isMessageTooLarge(err.data)) {
      message = tooLarge(this.name, err.data.bytes);
    } else if (err instanceof McpError) {
      // The server's own JSON-RPC error, as it gave it (the SDK prefixes "MCP error <code>: ").
      const own = err.message.replace(/^MCP error -?\d+: /, '');
      message = `the MCP server "${this.name}" answered with an error (JSON-RPC ${err.code}): ${own}`;
      reason = 'server_error';
    } else if (this.config.transport !== 'stdio') {
      // Over HTTP a failed request is the transport's (refused, reset, a session that ended): connect again.
      message = `Cannot reach the MCP server "${this.name}" (${this.where()}): ${err instanceof Error ? err.message : String(err)}; the next call reconnects`;
      reason = 'connection_lost'; // it may have been sent before the transport failed
      this.drop(client);
    } else {
      message = `the call to the MCP server "${this.name}" failed: ${err instanceof Error ? err.message : String(err)}`;
    }
    return { message: this.redact(message), reason };
  }

  private stderrNote(): string {
    const stderr = this.stderrTail.trim().split('\n').slice(-3).join(' | ');
    return this.config.transport === 'stdio' && stderr ? ` (server stderr: ${stderr})` : '';
  }

  private describeFailure(err: unknown): string {
    let message = err instanceof Error ? err.message : String(err);
    if (err instanceof McpError && err.code === ErrorCode.ConnectionClosed) message = 'it closed the connection while starting (it exited?)';
    return this.redact(message + this.stderrNote());
  }
}

function tooLarge(server: string, bytes: number | undefined): string {
  return `the MCP server "${server}" answered with ${bytes ? formatBytes(bytes) : 'a result'} — more than the ${formatBytes(MCP_MAX_MESSAGE_BYTES)} one result may have here — so the result was dropped; the server keeps running. Ask for less (a smaller range, a page, a summary).`;
}

/** Whether plain data would take more than `limit` characters as JSON (counted without building it). */
function jsonLongerThan(value: unknown, limit: number): boolean {
  let total = 0;
  const stack: unknown[] = [value];
  while (stack.length) {
    const v = stack.pop();
    if (typeof v === 'string') total += v.length + 2;
    else if (Array.isArray(v)) for (const child of v) stack.push(child);
    else if (v && typeof v === 'object') {
      for (const [k, child] of Object.entries(v)) {
        total += k.length + 4;
        stack.push(child);
      }
    } else total += 5;
    if (total > limit) return true;
  }
  return false;
}
