/**
 * Finds or builds the Temporal server and its SQL schema tool, for the production-like cluster of
 * `npm run test:cluster` (PostgreSQL, each service its own process):
 *   1. TEMPORAL_SERVER_PATH and TEMPORAL_SQL_TOOL_PATH (both, or neither)
 *   2. the cached build in ~/.cache/livecontext/temporal-server-v1.29.1/ (outside the work tree)
 *   3. `go install go.temporal.io/server/cmd/server@v1.29.1` and `…/cmd/tools/sql@v1.29.1` into that
 *      cache, when Go is present (once per machine; about 4 minutes after the CLI's build, whose Go
 *      build cache holds most of the same packages: the CLI embeds this server)
 *   4. null, with the reason: the cluster tests are skipped
 * v1.29.1 is the server the CLI's dev server (v1.5.1) embeds, so both test stacks run the same server code.
 * Plain Node (no dependencies), like temporal-cli.cjs.
 */
const { execFileSync } = require('node:child_process');
const path = require('node:path');
const { cacheDir, findGo, goInstall, isExecutable } = require('./go-build-cache.cjs');

const SERVER_VERSION = 'v1.29.1';
const CACHE_DIR = cacheDir(`temporal-server-${SERVER_VERSION}`);
/** `go install` names a binary after its package folder: `server` and `sql`. */
const CACHED = { server: path.join(CACHE_DIR, 'server'), sqlTool: path.join(CACHE_DIR, 'sql') };

/**
 * @returns {{ server: string, sqlTool: string, built?: number } | { missing: string }} the two executables
 *   (`built`: seconds the build took, when it ran now), or why there are none.
 */
function ensureTemporalServer({ log = (m) => console.error(m), build = true } = {}) {
  const { TEMPORAL_SERVER_PATH: server, TEMPORAL_SQL_TOOL_PATH: sqlTool } = process.env;
  if (server || sqlTool) {
    for (const [name, file] of [
      ['TEMPORAL_SERVER_PATH', server],
      ['TEMPORAL_SQL_TOOL_PATH', sqlTool],
    ]) {
      if (!file || !isExecutable(file))
        throw new Error(`${name}=${file ?? ''} is not an executable file (set both TEMPORAL_SERVER_PATH and TEMPORAL_SQL_TOOL_PATH, or neither).`);
    }
    return { server, sqlTool };
  }
  if (isExecutable(CACHED.server) && isExecutable(CACHED.sqlTool)) return { ...CACHED };
  const go = findGo();
  if (!go) return { missing: `no Temporal server in ${CACHE_DIR} and no Go toolchain to build one (or set TEMPORAL_SERVER_PATH and TEMPORAL_SQL_TOOL_PATH)` };
  if (!build) return { missing: `the Temporal server ${SERVER_VERSION} is not built yet (${CACHE_DIR})` };
  log(`livecontext: building the Temporal server ${SERVER_VERSION} and its SQL tool with Go into ${CACHE_DIR} (once; a few minutes)…`);
  const started = Date.now();
  const result = goInstall(go, CACHE_DIR, [`go.temporal.io/server/cmd/server@${SERVER_VERSION}`, `go.temporal.io/server/cmd/tools/sql@${SERVER_VERSION}`]);
  const built = Math.round((Date.now() - started) / 1000);
  if (result.status !== 0 || !isExecutable(CACHED.server) || !isExecutable(CACHED.sqlTool)) {
    return { missing: `building the Temporal server ${SERVER_VERSION} failed (go install exited ${result.status})` };
  }
  log(`livecontext: built ${execFileSync(CACHED.server, ['--version']).toString().trim()} in ${built} s`);
  return { ...CACHED, built };
}

module.exports = { ensureTemporalServer, CACHE_DIR, SERVER_VERSION };

if (require.main === module) {
  const found = ensureTemporalServer();
  if ('missing' in found) {
    console.error(`livecontext: ${found.missing}`);
    process.exit(1);
  }
  console.log(JSON.stringify(found));
}
