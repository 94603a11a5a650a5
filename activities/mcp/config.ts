/**
 * The ecosystem's `mcpServers` JSON (Claude Desktop, Cursor, VS Code, Gemini CLI):
 * `{"mcpServers": {"fs": {"command", "args", "env"}, "docs": {"url", "headers"}}}`. `${VAR}` in
 * `command`, `args`, `env`, `url` and `headers` is read from the worker's environment. What comes from
 * `env` and `headers` (and any expanded variable whose name looks secret) is a secret: it stays on the
 * worker and is cut out of everything an MCP server sends back, and of every log line and error.
 */
import { readFileSync } from 'node:fs';
import { z } from 'zod';
import { UserError } from '../../common/user-error';
import { MIN_SECRET_LENGTH, type Secret, looksSecret } from '../tools/redact-secrets';
import { type McpRetryConfig, McpRetryEntry } from './mcp-retry';

const StringMap = z.record(z.string(), z.string());

/** One server as written in the file: a command (stdio) or a URL (Streamable HTTP, or legacy SSE). */
export const McpServerEntry = z
  .object({
    /** `stdio`, `http` (Streamable HTTP only), `sse` (legacy only); absent: from `command`/`url`. */
    type: z.enum(['stdio', 'http', 'streamable-http', 'sse']).optional(),
    command: z.string().min(1).optional(),
    args: z.array(z.string()).optional(),
    env: StringMap.optional(),
    cwd: z.string().optional(),
    url: z.string().min(1).optional(),
    headers: StringMap.optional(),
    /** Per-call timeout in ms (Gemini CLI's field); default DEFAULT_TOOL_TIMEOUT_MS. */
    timeout: z.number().int().positive().optional(),
    /** Claude Desktop / Cursor convention: a server that is configured but off. */
    disabled: z.boolean().optional(),
    /** Retries of every tool of this server (see mcp-retry.ts). */
    retry: McpRetryEntry.optional(),
    /** Settings of single tools, by the server's tool name: `{"search": {"retry": {...}}}`. */
    tools: z.record(z.string(), z.object({ retry: McpRetryEntry.optional() }).strict()).optional(),
  })
  .refine((s) => (s.command === undefined) !== (s.url === undefined), { message: 'give either "command" (stdio) or "url" (HTTP), not both or neither' })
  .refine((s) => !(s.type === 'stdio' && !s.command) && !(s.type && s.type !== 'stdio' && !s.url), { message: '"type" does not match "command"/"url"' });
export type McpServerEntry = z.infer<typeof McpServerEntry>;

export const McpServersFile = z.object({ mcpServers: z.record(z.string().min(1), McpServerEntry) });
export type McpServersFile = z.infer<typeof McpServersFile>;

/** A server ready to connect to: variables expanded, transport chosen, its secrets listed. */
export type McpServerConfig = McpRetryConfig & {
  name: string;
  timeoutMs?: number;
  /** Values never to show anywhere (longest first). */
  secrets: Secret[];
} & (
    | { transport: 'stdio'; command: string; args: string[]; env: Record<string, string>; cwd?: string }
    | { transport: 'http' | 'sse' | 'http-or-sse'; url: string; headers: Record<string, string> }
  );

/** How to write a configuration, for the messages that find none. */
export const MCP_CONFIG_EXAMPLE =
  'Write one in the format Claude Desktop and Cursor use, e.g. {"mcpServers": {"fs": {"command": "npx", "args": ["-y", "@modelcontextprotocol/server-filesystem", "."]}}} (see docs/tools-and-mcp.md).';

/** Reads and checks an `mcpServers` file; errors name the file and the field. */
export function loadMcpConfigFile(file: string, env: NodeJS.ProcessEnv = process.env): McpServerConfig[] {
  let text: string;
  try {
    text = readFileSync(file, 'utf8');
  } catch (err) {
    const code = (err as NodeJS.ErrnoException).code;
    if (code === 'ENOENT') throw new UserError(`There is no MCP configuration file at ${file}. ${MCP_CONFIG_EXAMPLE}`, 'MCP_CONFIG');
    const why = code === 'EACCES' ? 'permission denied' : code === 'EISDIR' ? 'it is a folder' : (err as Error).message;
    throw new UserError(`Cannot read the MCP configuration ${file}: ${why}.`, 'MCP_CONFIG');
  }
  let json: unknown;
  try {
    json = JSON.parse(text);
  } catch (err) {
    throw new UserError(`The MCP configuration ${file} is not valid JSON: ${(err as Error).message}.`, 'MCP_CONFIG');
  }
  return parseMcpConfig(json, env, file);
}

/** Checks `{"mcpServers": {...}}` (or the inner object alone) and expands `${VAR}`s from `env`. */
export function parseMcpConfig(json: unknown, env: NodeJS.ProcessEnv = process.env, where = 'the MCP configuration'): McpServerConfig[] {
  const object = json && typeof json === 'object' && !Array.isArray(json);
  // A file may hold remote A2A agents (`a2aAgents`, activities/a2a/config.ts) beside its servers, or only those.
  const wrapped = object && !('mcpServers' in json) ? ('a2aAgents' in json ? { mcpServers: {} } : { mcpServers: json }) : json;
  const parsed = McpServersFile.safeParse(wrapped);
  if (!parsed.success) {
    const issues = parsed.error.issues.map((i) => `${i.path.join('.') || '(top level)'}: ${i.message}`).join('; ');
    throw new UserError(`Invalid ${where}: ${issues}.`, 'MCP_CONFIG');
  }
  return Object.entries(parsed.data.mcpServers)
    .filter(([, entry]) => !entry.disabled)
    .map(([name, entry]) => resolveServer(name, entry, env, where));
}

function resolveServer(name: string, entry: McpServerEntry, env: NodeJS.ProcessEnv, where: string): McpServerConfig {
  const secrets = new Map<string, string>();
  const secret = (value: string, label: string) => {
    for (const v of [value, ...value.split(/\s+/)]) if (v.length >= MIN_SECRET_LENGTH && !secrets.has(v)) secrets.set(v, label);
  };
  /** `inSecretField`: env and headers, where every expansion is a secret. */
  const expand = (text: string, field: string, inSecretField: boolean) =>
    text.replace(/\$\{([A-Za-z_][A-Za-z0-9_]*)(?::-([^}]*))?\}/g, (_m, variable: string, fallback: string | undefined) => {
      const value = env[variable] ?? fallback;
      if (value === undefined)
        throw new UserError(`Invalid ${where}: mcpServers.${name}.${field} uses \${${variable}}, which is not set in the worker's environment.`, 'MCP_CONFIG');
      if (inSecretField || looksSecret(variable)) secret(value, variable);
      return value;
    });
  const expandMap = (map: Record<string, string> | undefined, field: string) =>
    Object.fromEntries(Object.entries(map ?? {}).map(([k, v]) => [k, expand(v, `${field}.${k}`, true)]));

  const timeoutMs = entry.timeout;
  const retries: McpRetryConfig = { ...(entry.retry ? { retry: entry.retry } : {}), ...(entry.tools ? { tools: entry.tools } : {}) };
  if (entry.command !== undefined) {
    const envMap = expandMap(entry.env, 'env');
    for (const [k, v] of Object.entries(envMap)) if (looksSecret(k)) secret(v, k);
    const server = {
      name,
      transport: 'stdio' as const,
      command: expand(entry.command, 'command', false),
      args: (entry.args ?? []).map((a, i) => expand(a, `args.${i}`, false)),
      env: envMap,
      ...(entry.cwd ? { cwd: expand(entry.cwd, 'cwd', false) } : {}),
    };
    return { ...server, ...(timeoutMs ? { timeoutMs } : {}), ...retries, secrets: sortedSecrets(secrets) };
  }
  const headers = expandMap(entry.headers, 'headers');
  for (const [k, v] of Object.entries(headers)) secret(v, `${name} header ${k}`);
  const url = expand(entry.url!, 'url', false);
  try {
    new URL(url);
  } catch {
    throw new UserError(`Invalid ${where}: mcpServers.${name}.url is not a URL.`, 'MCP_CONFIG');
  }
  const transport = entry.type === 'sse' ? 'sse' : entry.type === 'http' || entry.type === 'streamable-http' ? 'http' : 'http-or-sse';
  return { name, transport, url, headers, ...(timeoutMs ? { timeoutMs } : {}), ...retries, secrets: sortedSecrets(secrets) };
}

function sortedSecrets(map: Map<string, string>): Secret[] {
  return [...map].map(([value, name]) => ({ name, value })).sort((a, b) => b.value.length - a.value.length);
}
