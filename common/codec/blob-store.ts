/**
 * Where offloaded payloads live. The default is a folder: LIVECONTEXT_BLOB_DIR, else
 * `$XDG_DATA_HOME/livecontext/blobs` (`~/.local/share/livecontext/blobs`) — never relative to the
 * current directory, so a client started elsewhere on the machine finds the same blobs as the worker.
 * Point every worker and client at the same shared folder to run on several machines, or implement
 * BlobStore for an object store.
 */
import { createHash, randomBytes } from 'node:crypto';
import { mkdir, readFile, rename, writeFile } from 'node:fs/promises';
import os from 'node:os';
import path from 'node:path';

export interface BlobStore {
  /** Stores bytes under their content hash; returns the key. Idempotent. */
  put(bytes: Uint8Array): Promise<string>;
  get(key: string): Promise<Uint8Array>;
}

export class FileBlobStore implements BlobStore {
  constructor(readonly dir: string = defaultBlobDir()) {
    this.dir = path.resolve(dir);
  }

  /** Throws before anything is sent when the blob cannot be stored (the payload would be unreadable). */
  async put(bytes: Uint8Array): Promise<string> {
    const key = createHash('sha256').update(bytes).digest('hex');
    const file = this.file(key);
    try {
      await mkdir(path.dirname(file), { recursive: true });
      // Unique per write: two puts of the same bytes at once (one process, one millisecond) shared a
      // temporary name, and the second rename found it gone (ENOENT), failing a put that had nothing wrong.
      const tmp = `${file}.${process.pid}.${randomBytes(6).toString('hex')}.tmp`;
      await writeFile(tmp, bytes);
      await rename(tmp, file); // atomic: readers never see half a blob
    } catch (err) {
      throw new Error(
        `Cannot store a large payload in the blob store ${this.dir} (${(err as Error).message}); set LIVECONTEXT_BLOB_DIR to a folder this process can write, shared with the workers.`,
      );
    }
    return key;
  }

  async get(key: string): Promise<Uint8Array> {
    if (!/^[0-9a-f]{64}$/.test(key)) throw new Error(`Not a blob key: ${key}`);
    const bytes = await readFile(this.file(key)).catch((err: NodeJS.ErrnoException) => {
      if (err.code === 'ENOENT') throw new Error(`Offloaded payload ${key} is missing from ${this.dir}: every worker and client must share the blob store.`);
      throw err;
    });
    if (createHash('sha256').update(bytes).digest('hex') !== key) throw new Error(`Offloaded payload ${key} is corrupt.`);
    return bytes;
  }

  private file(key: string): string {
    return path.join(this.dir, key.slice(0, 2), key);
  }
}

export function defaultBlobDir(env: NodeJS.ProcessEnv = process.env): string {
  if (env.LIVECONTEXT_BLOB_DIR) return path.resolve(env.LIVECONTEXT_BLOB_DIR);
  return path.join(env.XDG_DATA_HOME || path.join(os.homedir(), '.local', 'share'), 'livecontext', 'blobs');
}
