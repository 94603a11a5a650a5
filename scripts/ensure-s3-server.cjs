/**
 * Finds or builds the S3-compatible server the S3 blob store's test runs against (MinIO), like
 * temporal-cli.cjs does for the Temporal CLI:
 *   1. LIVECONTEXT_S3_SERVER_PATH
 *   2. a `minio` on PATH
 *   3. the cached build in ~/.cache/livecontext/minio-<version>/ (outside the work tree)
 *   4. `go install github.com/minio/minio@<version>` into that cache, when Go is present (a few minutes, once)
 *   5. null, having said why: the S3 test is skipped.
 * The version is the last commit of github.com/minio/minio (archived); its RELEASE.* tags are not
 * semver, so the Go module proxy serves the commit's pseudo-version, not the tag. Its go.mod has no
 * replace directive, so `go install pkg@version` works. Plain Node (no dependencies).
 */
const path = require('node:path');
const { cacheDir, findGo, goInstall, isExecutable, onPath } = require('./go-build-cache.cjs');

const MINIO_VERSION = 'v0.0.0-20260212201848-7aac2a2c5b7c';
const CACHE_DIR = cacheDir(`minio-${MINIO_VERSION}`);

/** The server found without building, or null. */
function findS3Server(env = process.env) {
  if (env.LIVECONTEXT_S3_SERVER_PATH) return isExecutable(env.LIVECONTEXT_S3_SERVER_PATH) ? env.LIVECONTEXT_S3_SERVER_PATH : null;
  const cached = path.join(CACHE_DIR, 'minio');
  return onPath('minio') || (isExecutable(cached) ? cached : null);
}

/** @returns {string|null} path to a `minio` executable, or null (the S3 test is then skipped). */
function ensureS3Server({ log = (m) => console.error(m), build = true } = {}) {
  const found = findS3Server();
  if (found) return found;
  if (process.env.LIVECONTEXT_S3_SERVER_PATH) {
    log(`livecontext: LIVECONTEXT_S3_SERVER_PATH=${process.env.LIVECONTEXT_S3_SERVER_PATH} is not an executable file; the S3 blob store test will be SKIPPED.`);
    return null;
  }
  const go = findGo();
  if (!go || !build) {
    log(
      `livecontext: no MinIO server (LIVECONTEXT_S3_SERVER_PATH, minio on PATH, ${CACHE_DIR})${go ? '' : ' and no Go toolchain to build it'}; the S3 blob store test will be SKIPPED.`,
    );
    return null;
  }
  log(`livecontext: building MinIO ${MINIO_VERSION} with Go into ${CACHE_DIR} (once; a few minutes)…`);
  const started = Date.now();
  const result = goInstall(go, CACHE_DIR, [`github.com/minio/minio@${MINIO_VERSION}`], { CGO_ENABLED: '0' });
  const cached = path.join(CACHE_DIR, 'minio');
  if (result.status !== 0 || !isExecutable(cached)) {
    log('livecontext: building MinIO failed; the S3 blob store test will be SKIPPED.');
    return null;
  }
  log(`livecontext: MinIO built in ${Math.round((Date.now() - started) / 1000)} s.`);
  return cached;
}

module.exports = { ensureS3Server, findS3Server, CACHE_DIR, MINIO_VERSION };

if (require.main === module) {
  const found = ensureS3Server();
  console.log(found ?? '');
}
