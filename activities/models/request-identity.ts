/**
 * Seed 002 `requestMetadata` on the wire. Of its fields only the session has a place both providers
 * accept on every request: the end-user id (OpenAI `user`, Anthropic `metadata.user_id`), used by them
 * for abuse detection (and by OpenAI for cache routing). Both ask for an opaque value, so the agent id is
 * sent hashed: stable per agent, traceable by whoever knows the id, naming no one. The run and trace ids
 * are not sent: OpenAI's `metadata` is refused unless `store` is on, which would keep the conversation
 * at OpenAI. `params.extra` (merged after these fields) can replace them.
 */
import { createHash } from 'node:crypto';
import type { RequestMetadata } from '../../agent/index';

/** `lc_` and 32 hex digits of SHA-256: within OpenAI's 64 and Anthropic's 256 characters. */
export function opaqueSessionId(sessionId: string): string {
  return `lc_${createHash('sha256').update(sessionId).digest('hex').slice(0, 32)}`;
}

export function openaiIdentity(metadata: RequestMetadata | undefined, enabled: boolean): { user?: string } {
  return enabled && metadata?.sessionId ? { user: opaqueSessionId(metadata.sessionId) } : {};
}

export function anthropicIdentity(metadata: RequestMetadata | undefined, enabled: boolean): { metadata?: { user_id: string } } {
  return enabled && metadata?.sessionId ? { metadata: { user_id: opaqueSessionId(metadata.sessionId) } } : {};
}
