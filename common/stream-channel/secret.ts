/**
 * The secret that makes a model call's stream readable only by livecontext's own readers. A call's
 * heartbeat names its stream (an address and a random key, recorded by Temporal); the token a reader
 * shows is HMAC(secret, key), so nothing that reaches Temporal (history, pending activity info, a
 * heartbeat-timeout failure's last details) grants access. Workers and readers share the secret:
 * `LIVECONTEXT_STREAM_SECRET` (any string; set it on every machine when gateways and workers are on
 * different ones), else a file (`LIVECONTEXT_STREAM_SECRET_FILE`, default ~/.livecontext/stream-secret,
 * mode 0600) that a worker creates and readers of the same user on the same machine find.
 */
import { createHmac, randomBytes, timingSafeEqual } from 'node:crypto';
import { chmodSync, linkSync, mkdirSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';

function secretFile(): string {
  return process.env.LIVECONTEXT_STREAM_SECRET_FILE || path.join(os.homedir(), '.livecontext', 'stream-secret');
}

/** The shared secret as readers find it, or undefined when there is none (readers then use heartbeats). */
export function readStreamSecret(): Buffer | undefined {
  const env = process.env.LIVECONTEXT_STREAM_SECRET;
  if (env) return Buffer.from(env, 'utf8');
  try {
    const text = readFileSync(secretFile(), 'utf8').trim();
    return text ? Buffer.from(text, 'utf8') : undefined;
  } catch {
    return undefined;
  }
}

/** The shared secret for a worker: read, or created in the secret file; undefined when neither works. */
export function ensureStreamSecret(): Buffer | undefined {
  const found = readStreamSecret();
  if (found) return found;
  const file = secretFile();
  const draft = `${file}.${process.pid}.${randomBytes(4).toString('hex')}`;
  try {
    mkdirSync(path.dirname(file), { recursive: true, mode: 0o700 });
    writeFileSync(draft, randomBytes(32).toString('hex') + '\n', { mode: 0o600 });
    chmodSync(draft, 0o600);
    // A link appears whole or not at all, and fails if another worker's secret is there first: readers
    // never see a half-written file and two workers starting at once end up with one secret.
    linkSync(draft, file);
  } catch (err) {
    if ((err as NodeJS.ErrnoException).code !== 'EEXIST') return undefined;
  } finally {
    rmSync(draft, { force: true });
  }
  return readStreamSecret();
}

/** The bearer token for one call's stream. */
export function streamToken(secret: Buffer, key: string): string {
  return createHmac('sha256', secret).update(`livecontext-stream:${key}`).digest('base64url');
}

/** Whether `token` is the token for `key`, compared in constant time. */
export function tokenMatches(secret: Buffer, key: string, token: string): boolean {
  const expected = Buffer.from(streamToken(secret, key));
  const given = Buffer.from(token);
  return given.length === expected.length && timingSafeEqual(given, expected);
}
