/**
 * What the find-or-build scripts share (temporal-cli.cjs, temporal-server.cjs, ensure-s3-server.cjs):
 * finding an executable, the per-machine cache folder outside the work tree, and `go install` into it.
 * Plain Node (no dependencies) so it runs before `npm install`.
 */
const { spawnSync } = require('node:child_process');
const fs = require('node:fs');
const os = require('node:os');
const path = require('node:path');

function isExecutable(file) {
  try {
    fs.accessSync(file, fs.constants.X_OK);
    return fs.statSync(file).isFile();
  } catch {
    return false;
  }
}

/** The first `name` on PATH that is an executable file, or null. */
function onPath(name) {
  for (const dir of (process.env.PATH || '').split(path.delimiter)) {
    if (dir && isExecutable(path.join(dir, name))) return path.join(dir, name);
  }
  return null;
}

/** The Go toolchain: on PATH or where the official installer puts it; null when there is none. */
function findGo() {
  return onPath('go') || (isExecutable('/usr/local/go/bin/go') ? '/usr/local/go/bin/go' : null);
}

/** ~/.cache/livecontext/<name> (XDG_CACHE_HOME honoured). */
function cacheDir(name) {
  return path.join(process.env.XDG_CACHE_HOME || path.join(os.homedir(), '.cache'), 'livecontext', name);
}

/** `go install <packages>` with GOBIN=`dir` (created first), Go's output shown; resolves to spawnSync's result. */
function goInstall(go, dir, packages, env = {}) {
  fs.mkdirSync(dir, { recursive: true });
  return spawnSync(go, ['install', ...packages], {
    env: { ...process.env, GOBIN: dir, GOFLAGS: '-mod=mod', ...env },
    stdio: ['ignore', 'inherit', 'inherit'],
  });
}

module.exports = { isExecutable, onPath, findGo, cacheDir, goInstall };
