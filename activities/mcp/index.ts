/** MCP servers' tools for a worker: the `mcpServers` configuration and the connection pool that serves their tools. */
export { type McpServerConfig, McpServersFile, loadMcpConfigFile, parseMcpConfig } from './config';
export { McpPool, type McpServerStatus } from './mcp-pool';
