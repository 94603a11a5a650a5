// `npm run chaos`: installs what is missing, finds or builds the Temporal CLI, runs the chaos suite.
import { spawnSync } from 'node:child_process';
import { createRequire } from 'node:module';
import path from 'node:path';
import { fileURLToPath } from 'node:url';

const require = createRequire(import.meta.url);
const root = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '..');
require('./ensure-deps.cjs').ensureDeps(root);
const cli = require('./temporal-cli.cjs').ensureTemporalCli();
const r = spawnSync(process.execPath, ['--import', 'tsx', path.join(root, 'test/chaos/run.ts')], {
  cwd: root,
  env: { ...process.env, ...(cli ? { TEMPORAL_CLI_PATH: cli } : {}) },
  stdio: 'inherit',
});
process.exit(r.status ?? 1);
