// `npm start`: installs what is missing, compiles dist/ if stale, then runs `livecontext up` (dev server, worker, console chat).
import { spawnSync } from 'node:child_process';
import { createRequire } from 'node:module';
import path from 'node:path';
import { fileURLToPath } from 'node:url';

const require = createRequire(import.meta.url);
const root = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '..');
require('./ensure-deps.cjs').ensureDeps(root);
require('./ensure-build.cjs').ensureBuild(root); // the CLI runs compiled code
if (!process.env.TEMPORAL_ADDRESS) require('./temporal-cli.cjs').ensureTemporalCli();

const result = spawnSync(process.execPath, [path.join(root, 'bin', 'livecontext.js'), 'up', ...process.argv.slice(2)], {
  cwd: root,
  stdio: 'inherit',
});
process.exit(result.status ?? 1);
