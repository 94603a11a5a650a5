/** MCP servers' tools for a worker: the `mcpServers` configuration, the connection pool, the tools. */
export { type McpServerConfig, McpServerEntry, McpServersFile, loadMcpConfigFile, parseMcpConfig } from './config';
export { McpPool, type McpServerStatus } from './mcp-pool';
export { type McpToolProgress } from './mcp-tool';
export { type McpLogger, MCP_CONNECT_TIMEOUT_MS } from './server-connection';
export { namespacedToolName, namespacedToolNames } from './tool-names';
