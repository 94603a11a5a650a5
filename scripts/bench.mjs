// `npm run bench`: installs what is missing, finds or builds the Temporal CLI, then runs the benchmark
// suite (bench/run.ts) on one dev server. Results: bench/results/latest.{json,md}.
import { spawnSync } from 'node:child_process';
import { createRequire } from 'node:module';
import path from 'node:path';
import { fileURLToPath } from 'node:url';

const require = createRequire(import.meta.url);
const root = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '..');
require('./ensure-deps.cjs').ensureDeps(root);
const cli = require('./temporal-cli.cjs').ensureTemporalCli();
const env = { ...process.env, ...(cli ? { TEMPORAL_CLI_PATH: cli } : {}), LIVECONTEXT_BENCH_STDOUT_FD: '3' };

// The child's fd 1 (which the dev server it starts inherits) goes to stderr, its fd 3 to our stdout:
// stdout carries the results table only, progress and server output go to stderr.
const args = ['--import', 'tsx', path.join('bench', 'run.ts'), ...process.argv.slice(2)];
const r = spawnSync(process.execPath, args, { cwd: root, env, stdio: ['inherit', 2, 'inherit', 1] });
if (r.error) console.error(`npm run bench: ${r.error.message}`);
process.exit(r.status ?? 1);
