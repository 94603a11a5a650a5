/**
 * A real MinIO server for a test (found or built by scripts/ensure-s3-server.cjs): its own data folder,
 * a free port, root credentials made up per run, one bucket created through the S3 API.
 */
import { type ChildProcess, spawn } from 'node:child_process';
import { randomBytes } from 'node:crypto';
import { mkdtemp, rm } from 'node:fs/promises';
import net from 'node:net';
import os from 'node:os';
import path from 'node:path';
import { CreateBucketCommand, S3Client } from '@aws-sdk/client-s3';
import { eventually } from './temporal';

// eslint-disable-next-line @typescript-eslint/no-require-imports
const { findS3Server } = require('../../scripts/ensure-s3-server.cjs') as { findS3Server(): string | null };

export interface S3TestServer {
  endpoint: string;
  bucket: string;
  accessKeyId: string;
  secretAccessKey: string;
  /** A client of the bucket with the server's credentials (to look at objects directly). */
  client: S3Client;
  /** The environment a worker or client needs to use this bucket (and nothing else). */
  env(): Record<string, string>;
  stop(): Promise<void>;
}

/** The server's executable, or null when `npm test` could not find or build one. */
export function s3ServerPath(): string | null {
  return findS3Server();
}

async function freePort(): Promise<number> {
  return new Promise((resolve, reject) => {
    const srv = net.createServer().listen(0, '127.0.0.1', () => {
      const { port } = srv.address() as net.AddressInfo;
      srv.close(() => resolve(port));
    });
    srv.on('error', reject);
  });
}

export async function startS3Server(exe: string, bucket = 'livecontext-test'): Promise<S3TestServer> {
  const dataDir = await mkdtemp(path.join(os.tmpdir(), 'lc-minio-'));
  const port = await freePort();
  const accessKeyId = `lc${randomBytes(6).toString('hex')}`;
  const secretAccessKey = randomBytes(18).toString('base64url');
  const proc: ChildProcess = spawn(
    exe,
    ['server', dataDir, '--address', `127.0.0.1:${port}`, '--console-address', `127.0.0.1:${await freePort()}`, '--quiet'],
    {
      env: { ...process.env, MINIO_ROOT_USER: accessKeyId, MINIO_ROOT_PASSWORD: secretAccessKey, MINIO_BROWSER: 'off', MINIO_UPDATE: 'off' },
      stdio: ['ignore', 'pipe', 'pipe'],
    },
  );
  let out = '';
  proc.stdout!.on('data', (d) => (out += d));
  proc.stderr!.on('data', (d) => (out += d));
  const exited = new Promise<void>((resolve) => proc.once('exit', () => resolve()));
  const endpoint = `http://127.0.0.1:${port}`;
  const stop = async () => {
    if (proc.exitCode === null && proc.signalCode === null) proc.kill('SIGTERM');
    await exited;
    await rm(dataDir, { recursive: true, force: true });
  };
  try {
    await eventually(
      async () => {
        if (proc.exitCode !== null) throw new Error(`MinIO exited early:\n${out}`);
        return fetch(`${endpoint}/minio/health/live`).then(
          (r) => r.ok,
          () => false,
        );
      },
      60_000,
      'MinIO to start',
    );
  } catch (err) {
    await stop();
    throw err;
  }
  const client = new S3Client({ endpoint, region: 'us-east-1', forcePathStyle: true, credentials: { accessKeyId, secretAccessKey } });
  await client.send(new CreateBucketCommand({ Bucket: bucket }));
  return {
    endpoint,
    bucket,
    accessKeyId,
    secretAccessKey,
    client,
    env: () => ({
      LIVECONTEXT_BLOB_S3_BUCKET: bucket,
      LIVECONTEXT_BLOB_S3_ENDPOINT: endpoint,
      AWS_ACCESS_KEY_ID: accessKeyId,
      AWS_SECRET_ACCESS_KEY: secretAccessKey,
      AWS_REGION: 'us-east-1',
    }),
    async stop() {
      client.destroy();
      await stop();
    },
  };
}
