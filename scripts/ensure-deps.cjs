/**
 * Installs npm dependencies when they are missing or older than package-lock.json, so `npm start` and
 * `npm test` work on a fresh clone. Plain Node, no dependencies.
 */
const { spawnSync } = require('node:child_process');
const fs = require('node:fs');
const path = require('node:path');

function ensureDeps(root = path.resolve(__dirname, '..')) {
  const marker = path.join(root, 'node_modules', '.package-lock.json');
  const lock = path.join(root, 'package-lock.json');
  const fresh = fs.existsSync(marker) && (!fs.existsSync(lock) || fs.statSync(marker).mtimeMs >= fs.statSync(lock).mtimeMs);
  if (fresh) return;
  console.error('livecontext: installing npm dependencies…');
  const npm = process.platform === 'win32' ? 'npm.cmd' : 'npm';
  // `npm install` (not `npm ci`): it honours the lock file, and npm 11 may omit other platforms'
  // optional packages from a lock file, which `npm ci` then rejects as out of sync.
  const args = ['install', '--no-audit', '--no-fund'];
  const result = spawnSync(npm, args, { cwd: root, stdio: ['ignore', 'inherit', 'inherit'] });
  if (result.status !== 0) throw new Error(`npm ${args[0]} failed (exit ${result.status}).`);
}

module.exports = { ensureDeps };
if (require.main === module) ensureDeps();
