/**
 * Finds or builds the Temporal CLI, which provides the dev server:
 *   1. TEMPORAL_CLI_PATH
 *   2. a `temporal` on PATH
 *   3. the cached build in ~/.cache/livecontext/temporal-v1.5.1/ (outside the work tree)
 *   4. `go install github.com/temporalio/cli/cmd/temporal@v1.5.1` into that cache, when Go is present
 *   5. null: the caller lets @temporalio/testing download the CLI (needs the internet)
 * Plain Node (no dependencies) so it runs before `npm install`.
 */
const { execFileSync } = require('node:child_process');
const path = require('node:path');
const { cacheDir, findGo, goInstall, isExecutable, onPath } = require('./go-build-cache.cjs');

const CLI_VERSION = 'v1.5.1';
const CACHE_DIR = cacheDir(`temporal-${CLI_VERSION}`);

/** @returns {string|null} path to a `temporal` executable, or null to fall back to the SDK's download */
function ensureTemporalCli({ log = (m) => console.error(m) } = {}) {
  if (process.env.TEMPORAL_CLI_PATH) {
    if (!isExecutable(process.env.TEMPORAL_CLI_PATH)) {
      throw new Error(`TEMPORAL_CLI_PATH=${process.env.TEMPORAL_CLI_PATH} is not an executable file.`);
    }
    return process.env.TEMPORAL_CLI_PATH;
  }
  const fromPath = onPath('temporal');
  if (fromPath) return fromPath;
  const cached = path.join(CACHE_DIR, 'temporal');
  if (isExecutable(cached)) return cached;
  const go = findGo();
  if (!go) {
    log('livecontext: no Temporal CLI and no Go toolchain; @temporalio/testing will download the CLI.');
    return null;
  }
  log(`livecontext: building the Temporal CLI ${CLI_VERSION} with Go into ${CACHE_DIR} (once; a few minutes)…`);
  const result = goInstall(go, CACHE_DIR, [`github.com/temporalio/cli/cmd/temporal@${CLI_VERSION}`]);
  if (result.status !== 0 || !isExecutable(cached)) {
    log('livecontext: building the Temporal CLI failed; falling back to the SDK download.');
    return null;
  }
  log(`livecontext: ${execFileSync(cached, ['--version']).toString().trim()}`);
  return cached;
}

module.exports = { ensureTemporalCli, CACHE_DIR, CLI_VERSION };

if (require.main === module) {
  const found = ensureTemporalCli();
  console.log(found ?? '');
}
