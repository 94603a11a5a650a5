/**
 * Compiles the TypeScript sources to dist/ when dist/ is missing or older than any source file, so the
 * CLI, the package entry and the Docker image run plain JavaScript (a start in a fraction of a second)
 * and are never stale in a checkout. Plain Node, no dependencies.
 */
const fs = require('node:fs');
const path = require('node:path');

/**
 * What dist/ is compiled from: every folder of shipped code (tsc also compiles what the build's
 * `include` list reaches by import, such as gateway/ through cli/serve.ts) and the compiler settings.
 * test/unit/ensure-build.test.ts checks that no folder of TypeScript is missing here.
 */
const SOURCES = ['index.ts', 'agent', 'workflows', 'activities', 'worker', 'client', 'cli', 'common', 'gateway', 'tsconfig.json', 'tsconfig.build.json'];
const STAMP = path.join('dist', '.build-stamp');

function newestMtime(file) {
  let stat;
  try {
    stat = fs.statSync(file);
  } catch {
    return 0;
  }
  if (!stat.isDirectory()) return stat.mtimeMs;
  let newest = stat.mtimeMs; // a deleted or renamed file changes its folder's time
  for (const name of fs.readdirSync(file)) newest = Math.max(newest, newestMtime(path.join(file, name)));
  return newest;
}

/**
 * Why dist/ must be compiled: 'first' when it was never built here (a fresh clone), 'changed' when it
 * is older than the sources, null when it is current (and in an installed package: it has no sources).
 */
function staleReason(root) {
  if (!fs.existsSync(path.join(root, 'index.ts'))) return null;
  const stamp = path.join(root, STAMP);
  if (!fs.existsSync(stamp)) return 'first';
  const built = fs.statSync(stamp).mtimeMs;
  return SOURCES.some((s) => newestMtime(path.join(root, s)) > built) ? 'changed' : null;
}

/** Whether dist/ is missing or older than the sources. */
function isStale(root) {
  return staleReason(root) !== null;
}

/** What is said while compiling. */
const BUILD_MESSAGE = {
  first: 'livecontext: building livecontext (first run: compiling the TypeScript sources to dist/, once)…',
  changed: 'livecontext: compiling to dist/ (the sources changed)…',
};

function ensureBuild(root = path.resolve(__dirname, '..'), { log = (m) => console.error(m) } = {}) {
  const reason = staleReason(root);
  if (!reason) return;
  let tsc;
  try {
    tsc = require.resolve('typescript/bin/tsc', { paths: [root] });
  } catch {
    return; // no compiler here (production install): use dist/ as it is
  }
  log(BUILD_MESSAGE[reason]);
  const started = Date.now(); // sources changed while compiling count as newer than the build
  const { spawnSync } = require('node:child_process'); // here: loading it costs every CLI start a few ms
  const result = spawnSync(process.execPath, [tsc, '-p', 'tsconfig.build.json'], { cwd: root, stdio: ['ignore', 'inherit', 'inherit'] });
  if (result.status !== 0) throw new Error(`Compiling livecontext failed (tsc exit ${result.status}).`);
  fs.writeFileSync(path.join(root, STAMP), `${new Date(started).toISOString()}\n`);
  fs.utimesSync(path.join(root, STAMP), started / 1000, started / 1000);
}

module.exports = { ensureBuild, isStale, staleReason, BUILD_MESSAGE, SOURCES };
if (require.main === module) ensureBuild();
