/**
 * The local Temporal dev server for `npm start` and `livecontext dev`: persistent (SQLite under
 * .livecontext/), with its Web UI. The CLI binary comes from scripts/temporal-cli.cjs; without one,
 * @temporalio/testing downloads it (needs the internet).
 *
 * A server this process starts cannot outlive it: it runs under scripts/child-keeper.cjs, which stops
 * it when this process's end of a pipe closes (`kill -9` included), in a process group of its own (so
 * a Ctrl-C meant for the chat does not reach it before the worker has stopped). A server already
 * listening on the port is reused and left running; `reusedFrom` says who started it, from the record
 * each start leaves in the temp folder (dev-server-owner.ts).
 */
import { type ChildProcess, spawn, spawnSync } from 'node:child_process';
import { existsSync, mkdirSync, openSync } from 'node:fs';
import path from 'node:path';
import { clearOwner, describeOwner, ownerRecordPath, recordOwner } from './dev-server-owner';
import { TestWorkflowEnvironment } from '@temporalio/testing';

import { SEARCH_ATTRIBUTES } from '../workflows/messages';
import { isListening } from '../common/ports';
import { packageRoot } from './package-root';

// eslint-disable-next-line @typescript-eslint/no-require-imports
const { ensureTemporalCli } = require(path.join(packageRoot(), 'scripts', 'temporal-cli.cjs')) as {
  ensureTemporalCli(o?: { log?: (m: string) => void }): string | null;
};

export interface DevServer {
  address: string;
  uiUrl: string;
  /** False when an already running server was reused. */
  started: boolean;
  /** When reused: who started it, e.g. "started by `livecontext up` (pid 4242 in /home/me/app); it stops when that one exits". */
  reusedFrom?: string;
  /** Stops a server started here (a reused one is left running). */
  stop(): Promise<void>;
}

export interface DevServerOptions {
  port?: number;
  uiPort?: number;
  /** Folder for the SQLite file and the server log (default `.livecontext`). */
  dataDir?: string;
  log?: (message: string) => void;
  /** Namespaces to create besides `default` (with the livecontext search attributes), if missing. */
  namespaces?: string[];
  /** The command that starts it, named to whoever later finds the server running (default `livecontext`). */
  owner?: string;
  /** A Prometheus endpoint for the server's own metrics on this port (default: none). */
  metricsPort?: number;
}

/**
 * Dynamic config of the dev server livecontext starts (`--dynamic-config-value`), also the benchmarks'.
 * Eager activity execution: a model call or tool the workflow schedules goes back to the worker in the
 * reply to the workflow task that scheduled it, instead of through matching to an activity poll (about
 * half of a plain turn's wait with a fast model). Eager workflow start: a start the worker's own client
 * requests eagerly gets its first workflow task in the start's reply (on by default in recent servers).
 * The transfer queue's reader (it hands a workflow task written after a call's result to matching) reads
 * at most 20 times a second per history shard by default, and the dev server has one shard: turns of one
 * agent back to back waited for it (~50 ms a turn, one read each); at 200 a read waits at most 5 ms.
 * A cluster sets the same in its dynamic config (docs/production.md).
 */
export const DEV_SERVER_DYNAMIC_CONFIG = [
  'system.enableActivityEagerExecution=true',
  'system.enableEagerWorkflowStart=true',
  'history.transferProcessorMaxPollRPS=200',
];

/**
 * SQLite settings of the dev server's database file (`--sqlite-pragma`): a write-ahead log instead of the
 * default rollback journal. Every workflow task's completion is a transaction; with the rollback journal
 * each rewrote and synced a journal file, and a plain turn with an instant model took ~44 ms p50 against
 * ~32 with the log (the bench's latency, file database). Commits stay synced (synchronous is left FULL).
 */
export const DEV_SERVER_SQLITE_PRAGMAS = ['journal_mode=wal'];

/** The `temporal server start-dev` flags for these settings (the benchmarks pass their own dynamic config). */
export function devServerSettingFlags(dynamicConfig = DEV_SERVER_DYNAMIC_CONFIG, sqlitePragmas = DEV_SERVER_SQLITE_PRAGMAS): string[] {
  return [...dynamicConfig.flatMap((kv) => ['--dynamic-config-value', kv]), ...sqlitePragmas.flatMap((kv) => ['--sqlite-pragma', kv])];
}

/** The dev server's port: LIVECONTEXT_TEMPORAL_PORT, default 7233 (its Web UI on the port + 1000, as the Temporal CLI does). */
export function devServerPort(env: NodeJS.ProcessEnv = process.env): number {
  const port = Number(env.LIVECONTEXT_TEMPORAL_PORT || 7233);
  if (!Number.isInteger(port) || port <= 0 || port > 64535)
    throw new Error(`LIVECONTEXT_TEMPORAL_PORT=${env.LIVECONTEXT_TEMPORAL_PORT} is not a port number (1–64535).`);
  return port;
}

export async function startDevServer(options: DevServerOptions = {}): Promise<DevServer> {
  const port = options.port ?? devServerPort();
  const uiPort = options.uiPort ?? port + 1000;
  const address = `127.0.0.1:${port}`;
  const uiUrl = `http://localhost:${uiPort}`;
  if (await isListening(port)) {
    createNamespaces(ensureTemporalCli({ log: options.log }), address, options.namespaces ?? [], options.log);
    return { address, uiUrl, started: false, reusedFrom: describeOwner(port), stop: async () => {} };
  }

  const dataDir = path.resolve(options.dataDir ?? '.livecontext');
  mkdirSync(dataDir, { recursive: true });
  const dbFilename = path.join(dataDir, 'temporal.db');
  const existed = existsSync(dbFilename);
  const exe = ensureTemporalCli({ log: options.log });
  if (!exe) {
    const env = await TestWorkflowEnvironment.createLocal({
      server: {
        dbFilename,
        ip: '127.0.0.1',
        port,
        ui: true,
        uiPort,
        searchAttributes: SEARCH_ATTRIBUTES,
        extraArgs: [...devServerSettingFlags(), ...(options.metricsPort ? ['--metrics-port', String(options.metricsPort)] : [])],
      },
    });
    return { address, uiUrl, started: true, stop: () => env.teardown() };
  }
  // Its output goes to a log file: stdout belongs to the chat.
  const logFd = openSync(path.join(dataDir, 'temporal-server.log'), 'a');
  const child = spawn(
    process.execPath,
    [
      path.join(packageRoot(), 'scripts', 'child-keeper.cjs'),
      String(STOP_GRACE_MS),
      exe,
      'server',
      'start-dev',
      '--db-filename',
      dbFilename,
      '--ip',
      '127.0.0.1',
      '--port',
      String(port),
      '--ui-port',
      String(uiPort),
      '--log-level',
      'warn',
      ...devServerSettingFlags(),
      ...(options.metricsPort ? ['--metrics-port', String(options.metricsPort)] : []),
      // The livecontext search attributes, so agents are searchable in the Web UI and by `livecontext list`.
      ...SEARCH_ATTRIBUTES.flatMap((k) => ['--search-attribute', `${k.name}=Keyword`]),
    ],
    // stdin: the pipe whose end stops the server. detached: its own process group (see above).
    { stdio: ['pipe', logFd, logFd], detached: true, env: { ...process.env, LIVECONTEXT_KEEPER_RECORD: ownerRecordPath(port) } },
  );
  const exited = new Promise<void>((resolve) => child.once('exit', () => resolve()));
  child.stdin!.on('error', () => {}); // ending it after the keeper has exited is fine
  const stop = async () => {
    child.stdin!.end();
    await exited;
    clearOwner(port, child.pid);
  };
  try {
    await waitForPort(port, child, 60_000);
  } catch (err) {
    await stop();
    throw err;
  }
  recordOwner(port, { command: options.owner ?? 'livecontext', keeperPid: child.pid! });
  // `--search-attribute` registers only in a new database: one kept from an older livecontext lacks
  // the attributes added since (LivecontextForkedFrom), so those are added to it.
  if (existed) addMissingSearchAttributes(exe, address, 'default');
  createNamespaces(exe, address, options.namespaces ?? [], options.log);
  return { address, uiUrl, started: true, stop };
}

/** How long the server gets to stop on SIGTERM before SIGKILL. */
const STOP_GRACE_MS = 10_000;

async function waitForPort(port: number, child: ChildProcess, timeoutMs: number): Promise<void> {
  const deadline = Date.now() + timeoutMs;
  while (!(await isListening(port))) {
    if (child.exitCode !== null) throw new Error(`The Temporal dev server exited (code ${child.exitCode}); see .livecontext/temporal-server.log.`);
    if (Date.now() > deadline) throw new Error(`The Temporal dev server did not listen on port ${port} within ${timeoutMs / 1000}s.`);
    await new Promise((r) => setTimeout(r, 200));
  }
}

/** Creates each namespace (and its search attributes) with the Temporal CLI; one that exists is left as it is. */
function createNamespaces(exe: string | null, address: string, namespaces: string[], log?: (m: string) => void): void {
  if (!namespaces.length) return;
  if (!exe) throw new Error('Creating a namespace needs the Temporal CLI (set TEMPORAL_CLI_PATH or install Go).');
  for (const namespace of namespaces) {
    const created = spawnSync(exe, ['operator', 'namespace', 'create', '--namespace', namespace, '--address', address], { encoding: 'utf8' });
    if (created.status !== 0 && !/already exists|already registered/i.test(created.stderr + created.stdout)) {
      throw new Error(`Could not create namespace ${namespace}: ${(created.stderr || created.stdout).trim().split('\n')[0]}`);
    }
    if (created.status === 0) log?.(`created namespace ${namespace}`);
    for (const key of SEARCH_ATTRIBUTES) registerSearchAttribute(exe, address, namespace, key.name);
  }
}

/** Registers the livecontext search attributes `namespace` lacks (one listing; a create per missing one). */
function addMissingSearchAttributes(exe: string, address: string, namespace: string): void {
  let listed = spawnSync(exe, ['operator', 'search-attribute', 'list', '--namespace', namespace, '--address', address], { encoding: 'utf8' });
  // The frontend may not answer yet, just after the port opened.
  for (let i = 0; i < 20 && listed.status !== 0; i++) {
    spawnSync('sleep', ['0.5']);
    listed = spawnSync(exe, ['operator', 'search-attribute', 'list', '--namespace', namespace, '--address', address], { encoding: 'utf8' });
  }
  if (listed.status !== 0) return; // the agents still run; only searches by the missing attributes find nothing
  for (const key of SEARCH_ATTRIBUTES) if (!listed.stdout.includes(key.name)) registerSearchAttribute(exe, address, namespace, key.name);
}

function registerSearchAttribute(exe: string, address: string, namespace: string, name: string): void {
  // Already registered is fine; a namespace just created may take a moment to accept them.
  for (let i = 0; i < 20; i++) {
    const r = spawnSync(exe, ['operator', 'search-attribute', 'create', '--namespace', namespace, '--name', name, '--type', 'Keyword', '--address', address], {
      encoding: 'utf8',
    });
    if (r.status === 0 || /already exists|already registered/i.test(r.stderr + r.stdout)) break;
    spawnSync('sleep', ['0.5']);
  }
}
