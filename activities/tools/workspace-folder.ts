/**
 * Agent id → workspace folder name, one-to-one. An id that is already a safe folder name keeps it (so
 * existing agents keep their files); any other id gets a readable sanitized prefix, "@" and a hash of
 * the exact id. A kept id never contains "@", so the two forms cannot collide, and two distinct ids
 * never share a folder ("coll/a", "coll a" and "coll_a" are three folders).
 */
import { createHash } from 'node:crypto';

/** Longest id kept as-is: every safe id that worked before (file systems allow 255 bytes per name). */
export const MAX_KEPT_ID_LENGTH = 255;
/** Length of the readable part of a hashed name; the whole name stays short enough for any file system. */
const PREFIX_LENGTH = 40;
/** 128 bits of SHA-256, as hex. */
const HASH_LENGTH = 32;
const SAFE_NAME = /^[A-Za-z0-9._-]+$/;
const HASH_MARK = '@';

export function safeFolderName(agentId: string): string {
  if (isKeptAsIs(agentId)) return agentId;
  // Leading dots would hide the folder (and "." or ".." would not be a folder of its own).
  const prefix = agentId
    .replace(/[^A-Za-z0-9._-]+/g, '_')
    .replace(/^\.+/, '_')
    .slice(0, PREFIX_LENGTH);
  const hash = createHash('sha256').update(agentId, 'utf8').digest('hex').slice(0, HASH_LENGTH);
  return `${prefix}${HASH_MARK}${hash}`;
}

function isKeptAsIs(agentId: string): boolean {
  return agentId.length <= MAX_KEPT_ID_LENGTH && SAFE_NAME.test(agentId) && agentId !== '.' && agentId !== '..';
}
