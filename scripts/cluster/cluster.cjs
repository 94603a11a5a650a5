/**
 * The production-like Temporal of `npm run test:cluster`: PostgreSQL (scripts/cluster/postgres.cjs), the
 * schema set up by the server's own SQL tool (deploy/temporal/setup-schema.sh), and the frontend, history,
 * matching and internal-worker services each as its own process, all from deploy/temporal/livecontext.yaml —
 * the file docker-compose.yml mounts. Then the `default` namespace and livecontext's search attributes
 * (deploy/temporal/setup-namespace.sh, as docker-compose.yml runs it).
 *
 * Everything a later process needs to reach or break the cluster (ports, pids, folders) is in
 * `<dir>/cluster.json`, so the tests (in jest's processes) can SIGKILL and restart one service or
 * PostgreSQL, and the script that started it can always tear it down. Plain Node, no dependencies.
 */
const { spawn, spawnSync } = require('node:child_process');
const fs = require('node:fs');
const net = require('node:net');
const os = require('node:os');
const path = require('node:path');
const { initPostgres, startPostgres, stopPostgres } = require('./postgres.cjs');

const ROOT = path.resolve(__dirname, '../..');
const CONFIG_DIR = path.join(ROOT, 'deploy/temporal');
/** The config's name for the server's `--env`: deploy/temporal/livecontext.yaml. */
const CONFIG_ENV = 'livecontext';
/** Started in this order: history owns the shards the others look up. */
const SERVICES = ['history', 'matching', 'frontend', 'worker'];

const sleep = (ms) => new Promise((r) => setTimeout(r, ms));

/** A free loopback port; below 32768 when `low` (Temporal stores membership ports as SQL smallint). */
async function freePort(low = false) {
  for (let i = 0; i < 200; i++) {
    const want = low ? 20000 + Math.floor(Math.random() * 12000) : 0;
    const port = await new Promise((resolve) => {
      const srv = net.createServer();
      srv.once('error', () => resolve(0));
      srv.listen(want, '127.0.0.1', () => {
        const p = srv.address().port;
        srv.close(() => resolve(p));
      });
    });
    if (port) return port;
  }
  throw new Error('No free port found.');
}

function isAlive(pid) {
  try {
    process.kill(pid, 0);
    return true;
  } catch {
    return false;
  }
}

/** The environment deploy/temporal/livecontext.yaml reads, for this cluster. */
function serverEnv(state) {
  const p = state.ports;
  return {
    ...process.env,
    POSTGRES_SEEDS: '127.0.0.1',
    DB_PORT: String(p.postgres),
    POSTGRES_USER: state.pg.user,
    POSTGRES_PWD: state.pg.password,
    TEMPORAL_CONFIG_DIR_ABS: CONFIG_DIR,
    TEMPORAL_LOG_LEVEL: process.env.LIVECONTEXT_CLUSTER_LOG_LEVEL ?? 'warn',
    BIND_ON_IP: '127.0.0.1',
    TEMPORAL_BROADCAST_ADDRESS: '127.0.0.1',
    FRONTEND_GRPC_PORT: String(p.frontend),
    FRONTEND_HTTP_PORT: String(p.frontendHttp),
    FRONTEND_MEMBERSHIP_PORT: String(p.frontendMembership),
    HISTORY_GRPC_PORT: String(p.history),
    HISTORY_MEMBERSHIP_PORT: String(p.historyMembership),
    MATCHING_GRPC_PORT: String(p.matching),
    MATCHING_MEMBERSHIP_PORT: String(p.matchingMembership),
    WORKER_GRPC_PORT: String(p.worker),
    WORKER_MEMBERSHIP_PORT: String(p.workerMembership),
  };
}

function saveState(state) {
  fs.writeFileSync(state.stateFile, `${JSON.stringify(state, null, 2)}\n`);
}

/** Reads the state a running cluster wrote (LIVECONTEXT_CLUSTER_STATE by default). */
function readState(file = process.env.LIVECONTEXT_CLUSTER_STATE) {
  if (!file) throw new Error('LIVECONTEXT_CLUSTER_STATE is not set: run the cluster tests with `npm run test:cluster`.');
  return JSON.parse(fs.readFileSync(file, 'utf8'));
}

/** Starts one Temporal service as its own process (detached: it outlives the caller until torn down). */
function startService(state, name) {
  const log = fs.openSync(path.join(state.dir, `${name}.log`), 'a');
  const proc = spawn(state.server, ['--root', CONFIG_DIR, '--config', '.', '--env', CONFIG_ENV, '--allow-no-auth', 'start', '--service', name], {
    env: serverEnv(state),
    detached: true,
    stdio: ['ignore', log, log],
  });
  proc.unref();
  fs.closeSync(log);
  if (state.services[name]) state.retired = [...(state.retired ?? []), state.services[name]]; // stopped at teardown if still alive
  state.services[name] = proc.pid;
  saveState(state);
  return proc.pid;
}

/** Kills one service (SIGKILL: a crash) and waits until it is gone. */
async function killService(state, name, signal = 'SIGKILL') {
  const pid = state.services[name];
  if (!pid || !isAlive(pid)) return;
  process.kill(pid, signal);
  for (let i = 0; i < 200 && isAlive(pid); i++) await sleep(50);
}

/**
 * Brings the whole cluster up in a new temporary folder.
 * @param {{ server: string, sqlTool: string, cli: string, pgBin: string, log?: (m: string) => void, onState?: (state: object) => void }} o
 */
async function clusterUp(o) {
  let state;
  try {
    return await bringUp(o, (s) => {
      state = s;
      o.onState?.(s);
    });
  } catch (err) {
    // Nothing left running; the folder stays, with the services' and PostgreSQL's logs.
    if (state) await clusterDown(state, { keep: true });
    const tails = state ? SERVICES.map((s) => `${s}: ${logTail(path.join(state.dir, `${s}.log`))}`).join('\n') : '';
    throw new Error(`${err.message}${state ? `\n${tails}\n(logs in ${state.dir})` : ''}`);
  }
}

/** The last lines of a log, for an error message. */
function logTail(file, lines = 3) {
  try {
    return fs
      .readFileSync(file, 'utf8')
      .trim()
      .split('\n')
      .slice(-lines)
      .map((l) => l.slice(0, 400))
      .join('\n  ');
  } catch {
    return '(no log)';
  }
}

async function bringUp(o, onState) {
  const log = o.log ?? (() => {});
  const started = Date.now();
  const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'lc-cluster-'));
  fs.chmodSync(dir, 0o755); // PostgreSQL runs as another user, inside it
  const ports = { postgres: await freePort() };
  for (const s of ['frontend', 'history', 'matching', 'worker']) {
    ports[s] = await freePort();
    ports[`${s}Membership`] = await freePort(true);
  }
  ports.frontendHttp = await freePort();
  const state = {
    dir,
    stateFile: path.join(dir, 'cluster.json'),
    address: `127.0.0.1:${ports.frontend}`,
    namespace: 'default',
    server: o.server,
    cli: o.cli,
    ports,
    services: {},
    pg: null,
  };
  onState(state); // filled in as things start, so a caller can tear down what a failed start left
  state.pg = initPostgres({ bin: o.pgBin, dir, port: ports.postgres, user: 'temporal', password: 'temporal' });
  saveState(state);
  startPostgres(state.pg);
  log(`cluster: PostgreSQL on 127.0.0.1:${ports.postgres} (${path.basename(path.dirname(o.pgBin))}, data in ${state.pg.dataDir})`);
  const schema = spawnSync('sh', [path.join(CONFIG_DIR, 'setup-schema.sh')], {
    encoding: 'utf8',
    env: {
      ...process.env,
      SQL_TOOL: o.sqlTool,
      SQL_HOST: '127.0.0.1',
      SQL_PORT: String(ports.postgres),
      SQL_USER: state.pg.user,
      SQL_PASSWORD: state.pg.password,
    },
  });
  if (schema.status !== 0) throw new Error(`Setting up the Temporal schema failed:\n${schema.stdout}${schema.stderr}`);
  log('cluster: schema set up (temporal, temporal_visibility)');
  // The first service to start writes the cluster's metadata row; two writing it at once make the loser exit
  // ("failed to initialize current cluster metadata"), so history starts alone and the rest once that row is there.
  startService(state, 'history');
  await waitForClusterMetadata(state, 'history');
  log(`cluster: history wrote the cluster metadata after ${Math.round((Date.now() - started) / 1000)} s`);
  for (const s of SERVICES.filter((x) => x !== 'history')) startService(state, s);
  log(`cluster: ${SERVICES.map((s) => `${s} pid ${state.services[s]}`).join(', ')}; frontend ${state.address}`);
  const ns = spawnSync('sh', [path.join(CONFIG_DIR, 'setup-namespace.sh')], {
    encoding: 'utf8',
    env: { ...process.env, TEMPORAL_CLI: o.cli, TEMPORAL_ADDRESS: state.address, NAMESPACE: state.namespace },
  });
  if (ns.status !== 0) throw new Error(`Registering the namespace failed:\n${ns.stdout}${ns.stderr}`);
  await waitForAllServices(state);
  state.upSeconds = Math.round((Date.now() - started) / 1000);
  saveState(state);
  log(`cluster: up in ${state.upSeconds} s (${ns.stdout.trim()})`);
  return state;
}

/** Waits until a service has written the cluster's metadata row; fails if its process exits first. */
async function waitForClusterMetadata(state, name, ms = 60_000) {
  const deadline = Date.now() + ms;
  for (;;) {
    if (!isAlive(state.services[name])) throw new Error(`The ${name} service exited while starting.`);
    const q = spawnSync(
      path.join(state.pg.bin, 'psql'),
      ['-h', '127.0.0.1', '-p', String(state.ports.postgres), '-U', state.pg.user, '-d', 'temporal', '-tAc', 'SELECT count(*) FROM cluster_metadata_info'],
      {
        encoding: 'utf8',
        env: { ...process.env, PGPASSWORD: state.pg.password },
      },
    );
    if (q.status === 0 && Number(q.stdout.trim()) > 0) return;
    if (Date.now() > deadline)
      throw new Error(`The ${name} service did not write the cluster metadata within ${ms / 1000} s: ${(q.stderr || q.stdout).trim()}`);
    await sleep(200);
  }
}

/**
 * Waits until a workflow can be started and reach a task queue: the frontend then sees history and matching
 * in its membership (right after a start it may not: "Not enough hosts to serve the request").
 */
async function waitForAllServices(state, ms = 120_000) {
  const cli = (args) => spawnSync(state.cli, [...args, '--address', state.address, '--namespace', state.namespace], { encoding: 'utf8' });
  const deadline = Date.now() + ms;
  for (let i = 0; ; i++) {
    const dead = SERVICES.filter((s) => !isAlive(state.services[s]));
    if (dead.length) throw new Error(`The ${dead.join(', ')} service${dead.length > 1 ? 's' : ''} exited while the cluster started.`);
    const id = `livecontext-readiness-${process.pid}-${i}`;
    const started = cli(['workflow', 'start', '--type', 'readiness', '--task-queue', 'livecontext-readiness', '--workflow-id', id]);
    const polled = started.status === 0 && cli(['task-queue', 'describe', '--task-queue', 'livecontext-readiness']);
    if (started.status === 0) cli(['workflow', 'terminate', '--workflow-id', id, '--reason', 'readiness probe']);
    if (polled && polled.status === 0) return;
    if (Date.now() > deadline) throw new Error(`The cluster's services did not all answer: ${(started.stderr || polled?.stderr || '').trim()}`);
    await sleep(500);
  }
}

/** Stops every service and PostgreSQL and removes the folder (kept with `keep` or LIVECONTEXT_CLUSTER_KEEP=1, for its logs). */
async function clusterDown(state, { keep = process.env.LIVECONTEXT_CLUSTER_KEEP === '1' } = {}) {
  // The tests restart services from their own processes and write the new pids to the state file: read it,
  // and stop every pid either copy names, so no restarted service outlives the run.
  let saved = { services: {} };
  try {
    saved = JSON.parse(fs.readFileSync(state.stateFile, 'utf8'));
  } catch {
    // not written yet: what this process knows is all there is
  }
  const pids = [...new Set([...Object.values(state.services), ...Object.values(saved.services ?? {}), ...(saved.retired ?? [])])].filter(isAlive);
  for (const pid of pids) process.kill(pid, 'SIGTERM');
  for (let i = 0; i < 100 && pids.some(isAlive); i++) await sleep(50);
  for (const pid of pids.filter(isAlive)) process.kill(pid, 'SIGKILL');
  if (state.pg) {
    try {
      stopPostgres(state.pg, 'fast');
    } catch {
      stopPostgres(state.pg, 'immediate');
    }
  }
  if (!keep) fs.rmSync(state.dir, { recursive: true, force: true });
}

module.exports = { clusterUp, clusterDown, readState, startService, killService, freePort, serverEnv, SERVICES, CONFIG_DIR, CONFIG_ENV };
