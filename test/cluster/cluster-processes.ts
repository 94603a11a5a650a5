/**
 * The processes of the cluster tests around the Temporal services: livecontext workers (the test worker,
 * test/fixtures/test-worker.ts, each its own process) and gateways (`livecontext serve` from bin/, each its
 * own process), and the handle on the Temporal services and PostgreSQL that scripts/cluster/ started.
 */
import { type ChildProcess, spawn } from 'node:child_process';
import { mkdtempSync, readFileSync } from 'node:fs';
import path from 'node:path';
import { type ChildWorker, startChildWorker } from '../support/child-worker';
import { eventually, testAddress } from '../support/temporal';

// eslint-disable-next-line @typescript-eslint/no-require-imports
const cluster = require('../../scripts/cluster/cluster.cjs');
// eslint-disable-next-line @typescript-eslint/no-require-imports
const postgres = require('../../scripts/cluster/postgres.cjs');

const ROOT = path.resolve(__dirname, '../..');

/** A Temporal service of the cluster, each its own process. */
export type ServiceName = 'frontend' | 'history' | 'matching' | 'worker';

/** SIGKILLs one Temporal service and waits until it is gone. */
export async function killService(name: ServiceName): Promise<void> {
  await cluster.killService(cluster.readState(), name, 'SIGKILL');
}

/** Starts a service again, as the cluster started it (same config, ports and log file). */
export function restartService(name: ServiceName): void {
  cluster.startService(cluster.readState(), name);
}

/** SIGKILLs one Temporal service, waits `downMs`, starts it again. */
export async function crashService(name: ServiceName, downMs = 1000): Promise<void> {
  await killService(name);
  await new Promise((r) => setTimeout(r, downMs));
  restartService(name);
}

/**
 * Stops PostgreSQL as a crash does (connections cut), waits `downMs`, starts it again on its data.
 * Returns the postmaster's pid before and after, which differ when it really restarted.
 */
export async function crashPostgres(downMs = 3000): Promise<{ before: number; after: number }> {
  const state = cluster.readState();
  const pid = () => Number(readFileSync(path.join(state.pg.dataDir, 'postmaster.pid'), 'utf8').split('\n')[0]);
  const before = pid();
  postgres.stopPostgres(state.pg, 'immediate');
  await new Promise((r) => setTimeout(r, downMs));
  postgres.startPostgres(state.pg);
  return { before, after: pid() };
}

/** The pids of the running Temporal services (they change when a service is restarted). */
export function servicePids(): Record<ServiceName, number> {
  return cluster.readState().services;
}

export interface GatewayProcess {
  url: string;
  proc: ChildProcess;
  /** fetch with JSON in and out. */
  request(method: string, path: string, body?: unknown): Promise<{ status: number; body: any }>; // eslint-disable-line @typescript-eslint/no-explicit-any -- tests read any JSON
  stop(): Promise<void>;
}

/** `livecontext serve` on a free loopback port, over the cluster, for agents on `taskQueue`. */
export async function startGatewayProcess(taskQueue: string): Promise<GatewayProcess> {
  const proc = spawn(process.execPath, [path.join(ROOT, 'bin/livecontext.js'), 'serve', '--host', '127.0.0.1', '--port', '0'], {
    cwd: ROOT,
    env: { ...process.env, TEMPORAL_ADDRESS: testAddress(), TEMPORAL_NAMESPACE: 'default', LIVECONTEXT_TASK_QUEUE: taskQueue, LIVECONTEXT_GATEWAY_TOKEN: '' },
    stdio: ['ignore', 'pipe', 'pipe'],
  });
  let out = '';
  proc.stdout!.on('data', (d) => (out += d));
  proc.stderr!.on('data', (d) => (out += d));
  const exited = new Promise<void>((resolve) => proc.once('exit', () => resolve()));
  const url = await eventually(() => out.match(/Gateway on (http:\/\/[^\s]+)/)?.[1] ?? (proc.exitCode !== null && 'exited'), 60_000, 'the gateway to start');
  if (url === 'exited') throw new Error(`The gateway exited early:\n${out}`);
  return {
    url,
    proc,
    async request(method, p, body) {
      const res = await fetch(url + p, {
        method,
        headers: body === undefined ? {} : { 'content-type': 'application/json' },
        body: body === undefined ? undefined : JSON.stringify(body),
      });
      const text = await res.text();
      let parsed: unknown = text;
      try {
        parsed = text ? JSON.parse(text) : undefined;
      } catch {
        // not JSON: the text itself
      }
      return { status: res.status, body: parsed };
    },
    async stop() {
      if (proc.exitCode === null && proc.signalCode === null) proc.kill('SIGTERM');
      await exited;
    },
  };
}

/** A new folder inside the cluster's own, so the teardown removes it with the cluster. */
export function clusterTempDir(prefix: string): string {
  return mkdtempSync(path.join(cluster.readState().dir, prefix));
}

/** `count` worker processes on `taskQueue`, sharing one workspace root (as workers on shared storage do). */
export async function startWorkerProcesses(count: number, taskQueue: string, extraEnv: Record<string, string> = {}) {
  const env = {
    taskQueue,
    workspaceRoot: clusterTempDir('workspaces-'),
    controlDir: clusterTempDir('control-'),
    extraEnv,
  };
  const workers: ChildWorker[] = [];
  for (let i = 0; i < count; i++) workers.push(await startChildWorker(env));
  return { env, workers, start: () => startChildWorker(env) };
}
