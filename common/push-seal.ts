/**
 * The secret of A2A push notifications (`LIVECONTEXT_A2A_PUSH_SECRET`, the same on the gateway and the
 * worker) and what it keys: the seal of a caller's webhook credentials (AES-256-GCM; the gateway seals
 * before the config enters the agent's history, the delivery activity unseals), and each notification's
 * signature (HMAC-SHA256 over the body, hex, in `X-Livecontext-Signature: sha256=<hex>`). Each use has a
 * key of its own, derived from the secret.
 */
import { createCipheriv, createDecipheriv, createHash, createHmac, randomBytes } from 'node:crypto';

export const PUSH_SECRET_ENV = 'LIVECONTEXT_A2A_PUSH_SECRET';
export const SIGNATURE_HEADER = 'X-Livecontext-Signature';
export const DELIVERY_HEADER = 'X-Livecontext-Delivery';

/** A caller's credentials for its webhook: A2A's token (sent as X-A2A-Notification-Token) and an Authorization value. */
export interface PushCredentials {
  token?: string;
  authentication?: { scheme: string; credentials: string };
}

/** The secret from the environment, or undefined when push notifications are off. */
export function pushSecret(env: NodeJS.ProcessEnv = process.env): string | undefined {
  const s = env[PUSH_SECRET_ENV]?.trim();
  return s ? s : undefined;
}

const keyFor = (secret: string, use: string) => createHash('sha256').update(`livecontext-a2a-push:${use}:${secret}`).digest();

export function sealCredentials(secret: string, creds: PushCredentials): string {
  const iv = randomBytes(12);
  const cipher = createCipheriv('aes-256-gcm', keyFor(secret, 'seal'), iv);
  const body = Buffer.concat([cipher.update(JSON.stringify(creds), 'utf8'), cipher.final()]);
  return `v1.${Buffer.concat([iv, cipher.getAuthTag(), body]).toString('base64url')}`;
}

/** Throws when the seal was made with another secret or was changed. */
export function unsealCredentials(secret: string, sealed: string): PushCredentials {
  if (!sealed.startsWith('v1.')) throw new Error('not a sealed push credential');
  const raw = Buffer.from(sealed.slice(3), 'base64url');
  const decipher = createDecipheriv('aes-256-gcm', keyFor(secret, 'seal'), raw.subarray(0, 12));
  decipher.setAuthTag(raw.subarray(12, 28));
  return JSON.parse(Buffer.concat([decipher.update(raw.subarray(28)), decipher.final()]).toString('utf8')) as PushCredentials;
}

/** The signature of a notification's body: `sha256=<hex of HMAC-SHA256(body) with the secret>`. */
export const signBody = (secret: string, body: string) => `sha256=${createHmac('sha256', secret).update(body, 'utf8').digest('hex')}`;
