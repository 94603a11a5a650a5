/**
 * Where offloaded payloads live. The default is a folder (`.livecontext/blobs`, or LIVECONTEXT_BLOB_DIR:
 * point every worker and client at the same shared folder to run on several machines). Implement
 * BlobStore for an object store.
 */
import { createHash } from 'node:crypto';
import { mkdir, readFile, rename, writeFile } from 'node:fs/promises';
import path from 'node:path';

export interface BlobStore {
  /** Stores bytes under their content hash; returns the key. Idempotent. */
  put(bytes: Uint8Array): Promise<string>;
  get(key: string): Promise<Uint8Array>;
}

export class FileBlobStore implements BlobStore {
  constructor(readonly dir: string = process.env.LIVECONTEXT_BLOB_DIR || path.resolve('.livecontext', 'blobs')) {}

  async put(bytes: Uint8Array): Promise<string> {
    const key = createHash('sha256').update(bytes).digest('hex');
    const file = this.file(key);
    await mkdir(path.dirname(file), { recursive: true });
    const tmp = `${file}.${process.pid}.${Date.now()}.tmp`;
    await writeFile(tmp, bytes);
    await rename(tmp, file); // atomic: readers never see half a blob
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
