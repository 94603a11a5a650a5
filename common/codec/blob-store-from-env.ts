/**
 * Chooses the blob store from the environment: an S3-compatible bucket when LIVECONTEXT_BLOB_S3_BUCKET
 * is set (shared by machines), else the folder store (LIVECONTEXT_BLOB_DIR or the default folder).
 */
import { type BlobStore, FileBlobStore, defaultBlobDir } from './blob-store';
import { S3BlobStore, s3BlobStoreOptionsFromEnv } from './s3-blob-store';

export function blobStoreFromEnv(env: NodeJS.ProcessEnv = process.env): BlobStore {
  const s3 = s3BlobStoreOptionsFromEnv(env);
  return s3 ? new S3BlobStore(s3) : new FileBlobStore(defaultBlobDir(env));
}
