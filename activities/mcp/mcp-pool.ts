/**
 * A worker's MCP servers: one pooled connection each, their tools listed at start (a server that fails
 * to start, or whose listing goes past its bounds, is logged and skipped; the worker starts anyway), each
 * server a ToolSource `mcp:<server>`. A tool whose input schema is too deep or too large is left out, with
 * a warning naming it (tool-limits.ts).
 * When a server sends notifications/tools/list_changed, its tools are replaced in the registries it was
 * attached to. `close()` ends every connection (stdio servers exit) when the worker stops.
 */
import type { ToolRegistry, ToolSource } from '../tools/registry';
import type { McpServerConfig } from './config';
import { mcpTool, needsApprovalFor } from './mcp-tool';
import { type McpLogger, McpServerConnection, type McpToolDef } from './server-connection';
import { type McpListLimits, inputSchemaProblem } from './tool-limits';
import { namespacedToolNames } from './tool-names';

/** One server as `livecontext mcp list` shows it. */
export interface McpServerStatus {
  name: string;
  /** `stdio`, `streamable-http`, `sse`, or how it would be reached when it could not be. */
  transport: string;
  connected: boolean;
  error?: string;
  tools: Array<{ name: string; mcpName: string; description: string; needsApproval: boolean }>;
  /** The server's tools that are not offered, and why (an input schema too deep or too large). */
  skippedTools?: Array<{ mcpName: string; reason: string }>;
}

export class McpPool {
  readonly connections: McpServerConnection[];
  private readonly tools = new Map<string, McpToolDef[]>();
  private readonly errors = new Map<string, string>();
  private readonly skipped = new Map<string, Array<{ mcpName: string; reason: string }>>();
  private readonly registries = new Set<ToolRegistry>();

  constructor(
    configs: readonly McpServerConfig[],
    private readonly log?: McpLogger,
    options: { connectTimeoutMs?: number; listLimits?: Partial<McpListLimits> } = {},
  ) {
    const names = new Set<string>();
    for (const c of configs) {
      if (names.has(c.name)) throw new Error(`MCP server "${c.name}" is configured twice.`);
      names.add(c.name);
    }
    this.connections = configs.map(
      (config) =>
        new McpServerConnection(config, {
          log,
          connectTimeoutMs: options.connectTimeoutMs,
          listLimits: options.listLimits,
          onToolsChanged: (tools) => this.toolsChanged(config.name, tools),
        }),
    );
  }

  /** Lists every server's tools at once; failures are logged (without secrets) and that server is skipped. */
  async discover(): Promise<void> {
    await Promise.all(
      this.connections.map(async (c) => {
        try {
          this.tools.set(c.name, this.bounded(c, await c.listTools()));
          this.errors.delete(c.name);
          this.log?.info(`MCP server "${c.name}": ${this.tools.get(c.name)!.length} tools`);
        } catch (err) {
          const message = c.redact((err as Error).message);
          this.errors.set(c.name, `${message}; its tools are not offered`);
          this.log?.warn(`MCP server "${c.name}" skipped: ${message}; its tools are not offered`);
        }
      }),
    );
  }

  /** The discovered servers' tools, a source per server; `taken`: names other sources already use. */
  sources(taken: ReadonlySet<string> = new Set()): ToolSource[] {
    const used = new Set(taken);
    return this.connections
      .filter((c) => this.tools.has(c.name))
      .map((c) => {
        const source = this.source(c, used);
        for (const t of source.tools) used.add(t.name);
        return source;
      });
  }

  /** Adds the servers' tools to `registry` and keeps them current there when a server's list changes. */
  attach(registry: ToolRegistry): void {
    const taken = new Set(registry.names());
    for (const source of this.sources(taken)) registry.add(source);
    this.registries.add(registry);
  }

  status(): McpServerStatus[] {
    return this.connections.map((c) => {
      const defs = this.tools.get(c.name);
      const names = namespacedToolNames(
        c.name,
        (defs ?? []).map((d) => d.name),
      );
      return {
        name: c.name,
        transport:
          c.transportUsed ??
          (c.config.transport === 'http-or-sse' ? 'streamable-http or sse' : c.config.transport === 'http' ? 'streamable-http' : c.config.transport),
        connected: defs !== undefined,
        ...(this.errors.has(c.name) ? { error: this.errors.get(c.name) } : {}),
        tools: (defs ?? []).map((d, i) => ({
          name: names[i],
          mcpName: d.name,
          description: c.redact(d.description ?? ''),
          needsApproval: needsApprovalFor(d),
        })),
        ...(this.skipped.get(c.name)?.length ? { skippedTools: this.skipped.get(c.name) } : {}),
      };
    });
  }

  async close(): Promise<void> {
    await Promise.all(this.connections.map((c) => c.close()));
  }

  private source(c: McpServerConnection, taken: ReadonlySet<string>): ToolSource {
    const defs = this.tools.get(c.name) ?? [];
    const names = namespacedToolNames(
      c.name,
      defs.map((d) => d.name),
      taken,
    );
    return { name: `mcp:${c.name}`, tools: defs.map((d, i) => mcpTool(names[i], d, c)) };
  }

  /** The server's tools without those whose input schema goes past the bounds, each of those named in a warning. */
  private bounded(c: McpServerConnection, defs: McpToolDef[]): McpToolDef[] {
    const skipped: Array<{ mcpName: string; reason: string }> = [];
    const kept = defs.filter((d) => {
      const problem = inputSchemaProblem(d.inputSchema);
      if (problem) skipped.push({ mcpName: c.redact(d.name), reason: problem });
      return !problem;
    });
    for (const s of skipped) this.log?.warn(`MCP server "${c.name}": tool "${s.mcpName}" is not offered: ${s.reason}`);
    this.skipped.set(c.name, skipped);
    return kept;
  }

  private toolsChanged(server: string, all: McpToolDef[]): void {
    const connection = this.connections.find((c) => c.name === server)!;
    const tools = this.bounded(connection, all);
    this.tools.set(server, tools);
    this.errors.delete(server);
    this.log?.info(`MCP server "${server}" changed its tools: now ${tools.length}`);
    for (const registry of this.registries) {
      const others = new Set(
        registry
          .list()
          .filter((t) => t.source !== `mcp:${server}`)
          .map((t) => t.name),
      );
      try {
        registry.replace(this.source(connection, others));
      } catch (err) {
        this.log?.warn(`MCP server "${server}": its new tools could not be registered: ${connection.redact((err as Error).message)}`);
      }
    }
  }
}
