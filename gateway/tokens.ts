/**
 * Bearer tokens of the gateway, from its environment (never from a request, a config file in the
 * repository or an agent's history). A token is either `full` (anything the CLI can do) or `read`
 * (look, never change an agent).
 */
import { createHash, timingSafeEqual } from 'node:crypto';

export type TokenScope = 'read' | 'full';

export interface GatewayToken {
  scope: TokenScope;
  /** SHA-256 of the token: equal length for every comparison, and the token itself is not kept. */
  digest: Buffer;
}

const digest = (token: string) => createHash('sha256').update(token, 'utf8').digest();

/**
 * `LIVECONTEXT_GATEWAY_TOKEN` (full) and `LIVECONTEXT_GATEWAY_READ_TOKEN` (read-only); each may hold
 * several comma-separated tokens, so one can be rotated in while the old one is still accepted.
 */
export function tokensFromEnv(env: NodeJS.ProcessEnv = process.env): GatewayToken[] {
  const list = (value: string | undefined, scope: TokenScope) =>
    (value ?? '')
      .split(',')
      .map((t) => t.trim())
      .filter(Boolean)
      .map((t) => ({ scope, digest: digest(t) }));
  return [...list(env.LIVECONTEXT_GATEWAY_TOKEN, 'full'), ...list(env.LIVECONTEXT_GATEWAY_READ_TOKEN, 'read')];
}

/** The scope `presented` grants, or null. Every token is compared, in constant time, whatever matches. */
export function scopeOf(tokens: readonly GatewayToken[], presented: string): TokenScope | null {
  const d = digest(presented);
  let scope: TokenScope | null = null;
  for (const t of tokens) {
    if (timingSafeEqual(t.digest, d) && scope !== 'full') scope = t.scope;
  }
  return scope;
}
