/**
 * A BlobStore on an S3-compatible object store (AWS S3, MinIO, …), shared by every worker and client
 * on every machine. Same content addressing as the folder store: the key is the sha256 of the bytes,
 * verified on read. Encryption needs nothing here: the codec chain encrypts before it offloads, so the
 * objects hold ciphertext whenever LIVECONTEXT_CODEC_KEYS is set.
 *
 * Configured by environment (see s3BlobStoreOptionsFromEnv); credentials come from the AWS SDK's
 * standard chain (AWS_ACCESS_KEY_ID/AWS_SECRET_ACCESS_KEY, AWS_PROFILE, instance roles…) and are never
 * logged or put in an error message.
 */
import { createHash } from 'node:crypto';
import type { S3Client } from '@aws-sdk/client-s3';
import type { BlobStore } from './blob-store';

export interface S3BlobStoreOptions {
  bucket: string;
  /** Objects are named `<prefix><key>`; default `livecontext/blobs/`. */
  prefix?: string;
  /** For S3-compatible servers (MinIO…); AWS when absent. */
  endpoint?: string;
  region?: string;
  /** Path-style addressing (`endpoint/bucket/key`), which most S3-compatible servers need. */
  forcePathStyle?: boolean;
  /** Explicit credentials for programmatic use; by default the AWS SDK's standard chain (AWS_* env, profiles, roles). */
  credentials?: { accessKeyId: string; secretAccessKey: string; sessionToken?: string };
}

/** Null when LIVECONTEXT_BLOB_S3_BUCKET is not set (the folder store is the default). */
export function s3BlobStoreOptionsFromEnv(env: NodeJS.ProcessEnv = process.env): S3BlobStoreOptions | null {
  const bucket = env.LIVECONTEXT_BLOB_S3_BUCKET;
  if (!bucket) return null;
  const endpoint = env.LIVECONTEXT_BLOB_S3_ENDPOINT || undefined;
  const pathStyle = env.LIVECONTEXT_BLOB_S3_PATH_STYLE;
  return {
    bucket,
    prefix: env.LIVECONTEXT_BLOB_S3_PREFIX ?? 'livecontext/blobs/',
    endpoint,
    region: env.LIVECONTEXT_BLOB_S3_REGION || env.AWS_REGION || env.AWS_DEFAULT_REGION || 'us-east-1',
    // An explicit endpoint is almost always a MinIO-like server, which wants path style.
    forcePathStyle: pathStyle ? pathStyle !== '0' : Boolean(endpoint),
  };
}

export class S3BlobStore implements BlobStore {
  private client?: Promise<{ s3: S3Client; sdk: typeof import('@aws-sdk/client-s3') }>;
  readonly prefix: string;

  constructor(readonly options: S3BlobStoreOptions) {
    this.prefix = options.prefix ?? 'livecontext/blobs/';
  }

  /** Where the store points, for messages (no credentials). */
  describe(): string {
    return `s3://${this.options.bucket}/${this.prefix}${this.options.endpoint ? ` at ${this.options.endpoint}` : ''}`;
  }

  objectName(key: string): string {
    return `${this.prefix}${key}`;
  }

  async put(bytes: Uint8Array): Promise<string> {
    const key = createHash('sha256').update(bytes).digest('hex');
    const { s3, sdk } = await this.connect();
    try {
      await s3.send(new sdk.PutObjectCommand({ Bucket: this.options.bucket, Key: this.objectName(key), Body: bytes, ContentType: 'application/octet-stream' }));
    } catch (err) {
      // Thrown before anything reaches Temporal: the payload is not sent, nothing refers to a blob that is not there.
      throw new Error(`Cannot store a large payload in the blob store ${this.describe()}: ${explain(err)}`);
    }
    return key;
  }

  async get(key: string): Promise<Uint8Array> {
    if (!/^[0-9a-f]{64}$/.test(key)) throw new Error(`Not a blob key: ${key}`);
    const { s3, sdk } = await this.connect();
    let bytes: Uint8Array;
    try {
      const out = await s3.send(new sdk.GetObjectCommand({ Bucket: this.options.bucket, Key: this.objectName(key) }));
      if (!out.Body) throw new Error('empty response body');
      bytes = await out.Body.transformToByteArray();
    } catch (err) {
      if (errorName(err) === 'NoSuchKey' || (errorStatus(err) === 404 && errorName(err) !== 'NoSuchBucket')) {
        throw new Error(`Offloaded payload ${key} is missing from ${this.describe()}: every worker and client must share the blob store.`);
      }
      throw new Error(`Cannot read offloaded payload ${key} from the blob store ${this.describe()}: ${explain(err)}`);
    }
    if (createHash('sha256').update(bytes).digest('hex') !== key) throw new Error(`Offloaded payload ${key} is corrupt.`);
    return bytes;
  }

  /** Closes the HTTP connections (tests, short-lived CLIs). */
  async close(): Promise<void> {
    if (this.client) (await this.client).s3.destroy();
    this.client = undefined;
  }

  // The SDK is loaded on first use: processes on the folder store never pay for it.
  private connect(): Promise<{ s3: S3Client; sdk: typeof import('@aws-sdk/client-s3') }> {
    this.client ??= import('@aws-sdk/client-s3').then((sdk) => ({
      sdk,
      s3: new sdk.S3Client({
        region: this.options.region ?? 'us-east-1',
        ...(this.options.endpoint ? { endpoint: this.options.endpoint } : {}),
        forcePathStyle: this.options.forcePathStyle ?? false,
        ...(this.options.credentials ? { credentials: this.options.credentials } : {}),
        maxAttempts: 3,
      }),
    }));
    return this.client;
  }
}

function errorName(err: unknown): string | undefined {
  return (err as { name?: string; Code?: string })?.Code ?? (err as { name?: string })?.name;
}

function errorStatus(err: unknown): number | undefined {
  return (err as { $metadata?: { httpStatusCode?: number } })?.$metadata?.httpStatusCode;
}

/** The S3 error in words an operator can act on; the SDK's messages never include the secret key. */
function explain(err: unknown): string {
  const name = errorName(err);
  const status = errorStatus(err);
  if (name === 'NoSuchBucket') return 'the bucket does not exist (set LIVECONTEXT_BLOB_S3_BUCKET to an existing bucket).';
  if (name === 'InvalidAccessKeyId' || name === 'SignatureDoesNotMatch' || name === 'AccessDenied' || name === 'CredentialsProviderError' || status === 403) {
    return `access refused (${name ?? status}): check the AWS credentials (AWS_ACCESS_KEY_ID / AWS_SECRET_ACCESS_KEY or AWS_PROFILE) and the bucket policy.`;
  }
  // The SDK wraps network errors ("AWS SDK error wrapper for Error: connect ECONNREFUSED …").
  const e = err as { code?: string; cause?: { code?: string }; message?: string };
  const code = e?.code ?? e?.cause?.code ?? /\b(ECONNREFUSED|ENOTFOUND|ETIMEDOUT|ECONNRESET|EAI_AGAIN)\b/.exec(e?.message ?? '')?.[1];
  if (code === 'ECONNREFUSED' || code === 'ENOTFOUND' || code === 'ETIMEDOUT' || code === 'ECONNRESET' || code === 'EAI_AGAIN') {
    return `the object store is unreachable (${code}); check LIVECONTEXT_BLOB_S3_ENDPOINT / the network.`;
  }
  return `${name ?? 'error'}${status ? ` (HTTP ${status})` : ''}: ${(err as Error)?.message ?? String(err)}`;
}
