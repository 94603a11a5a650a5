/**
 * A throw-away PostgreSQL server from Debian's packages: `initdb` into a temporary folder, `pg_ctl` on a
 * free loopback port, run as an unprivileged user (`nobody` when we are root: PostgreSQL refuses root).
 * Plain Node, so the cluster scripts and the tests share it.
 */
const { spawnSync } = require('node:child_process');
const fs = require('node:fs');
const path = require('node:path');

const NOBODY = { uid: 65534, gid: 65534 };

/** The bin folder of the newest installed PostgreSQL (PG_BIN overrides), or null. */
function findPostgresBin() {
  if (process.env.PG_BIN) return fs.existsSync(path.join(process.env.PG_BIN, 'initdb')) ? process.env.PG_BIN : null;
  const root = '/usr/lib/postgresql';
  if (!fs.existsSync(root)) return null;
  const versions = fs
    .readdirSync(root)
    .filter((v) => fs.existsSync(path.join(root, v, 'bin', 'initdb')))
    .sort((a, b) => Number(b) - Number(a));
  return versions.length ? path.join(root, versions[0], 'bin') : null;
}

/** Runs a PostgreSQL program as the data folder's owner; throws with its output when it fails. */
function runAs(user, cmd, args) {
  const r = spawnSync(cmd, args, { encoding: 'utf8', ...(user ?? {}), cwd: '/' });
  if (r.status !== 0) throw new Error(`${path.basename(cmd)} ${args.join(' ')} failed (${r.status ?? r.signal}): ${r.stderr || r.stdout || r.error?.message}`);
  return r.stdout;
}

/**
 * Creates the data folder (`dir/pgdata`) with a `user`/`password` superuser that logs in with a password over TCP.
 * @returns {{ bin: string, dataDir: string, logFile: string, socketDir: string, port: number, user: string, password: string, runAs: {uid:number,gid:number}|null }}
 */
function initPostgres({ bin, dir, port, user, password }) {
  const owner = process.getuid && process.getuid() === 0 ? NOBODY : null;
  const dataDir = path.join(dir, 'pgdata');
  const socketDir = path.join(dir, 'pgsocket');
  const pwFile = path.join(dir, 'pgpassword');
  fs.mkdirSync(dataDir, { mode: 0o700 });
  fs.mkdirSync(socketDir, { mode: 0o755 });
  fs.writeFileSync(pwFile, `${password}\n`, { mode: 0o600 });
  if (owner) for (const p of [dataDir, socketDir, pwFile]) fs.chownSync(p, owner.uid, owner.gid);
  runAs(owner, path.join(bin, 'initdb'), ['-D', dataDir, '-U', user, `--pwfile=${pwFile}`, '--auth=scram-sha-256', '-E', 'UTF8', '--no-instructions']);
  fs.rmSync(pwFile);
  return { bin, dataDir, logFile: path.join(dir, 'postgres.log'), socketDir, port, user, password, runAs: owner };
}

/** Starts the server and waits until it takes connections. */
function startPostgres(pg) {
  if (!fs.existsSync(pg.logFile)) {
    fs.writeFileSync(pg.logFile, '');
    if (pg.runAs) fs.chownSync(pg.logFile, pg.runAs.uid, pg.runAs.gid);
  }
  const options = `-p ${pg.port} -k ${pg.socketDir} -c listen_addresses=127.0.0.1 -c max_connections=300 -c fsync=off`;
  runAs(pg.runAs, path.join(pg.bin, 'pg_ctl'), ['start', '-w', '-t', '60', '-D', pg.dataDir, '-l', pg.logFile, '-o', options]);
}

/**
 * Stops the server. `immediate` is a crash as far as clients can tell (connections cut, recovery at the
 * next start); `fast` is an orderly shutdown.
 */
function stopPostgres(pg, mode = 'fast') {
  if (!fs.existsSync(path.join(pg.dataDir, 'postmaster.pid'))) return;
  runAs(pg.runAs, path.join(pg.bin, 'pg_ctl'), ['stop', '-w', '-t', '60', '-m', mode, '-D', pg.dataDir]);
}

module.exports = { findPostgresBin, initPostgres, startPostgres, stopPostgres };
