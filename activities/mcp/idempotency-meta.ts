/**
 * The `_meta` key of every MCP `tools/call` that holds the call's idempotency key (`workflowId/toolCallId`,
 * the same on every attempt of the call). MCP lets implementations name `_meta` keys under a reverse-DNS
 * prefix of their own; a server that does something may do it once per key. Its own file, so naming it
 * does not load the MCP SDK.
 */
export const MCP_IDEMPOTENCY_META_KEY = 'dev.livecontext/idempotency-key';
