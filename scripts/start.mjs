// `npm start`: installs what is missing, compiles dist/ if stale, then runs `livecontext up` (dev server, worker, console chat).
// What it starts does not outlive it: `livecontext up` gets the read end of a pipe (LIVECONTEXT_OWNER_FD) and stops
// everything when this process ends, however it ends; and this process stops `up` when `npm start` itself has ended
// (scripts/owner-watch.cjs: npm killed with -9 leaves its shell and this process behind).
import { spawn } from 'node:child_process';
import { createRequire } from 'node:module';
import path from 'node:path';
import { fileURLToPath } from 'node:url';

const require = createRequire(import.meta.url);
const root = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '..');
require('./ensure-deps.cjs').ensureDeps(root);
require('./ensure-build.cjs').ensureBuild(root); // the CLI runs compiled code
if (!process.env.TEMPORAL_ADDRESS) require('./temporal-cli.cjs').ensureTemporalCli();

// In the folder npm runs scripts in (the project's): .livecontext/ (server data, logs, workspaces) goes there.
const child = spawn(process.execPath, [path.join(root, 'bin', 'livecontext.js'), 'up', ...process.argv.slice(2)], {
  stdio: ['inherit', 'inherit', 'inherit', 'pipe'],
  env: { ...process.env, LIVECONTEXT_OWNER_FD: '3' },
});
// Ctrl-C reaches `up` itself (same process group); it decides. Other signals are passed on.
process.on('SIGINT', () => {});
for (const signal of ['SIGTERM', 'SIGHUP']) process.on(signal, () => child.kill(signal));
require('./owner-watch.cjs').watchOwners((pid) => {
  console.error(`npm start: the process that ran it (pid ${pid}) has ended; stopping livecontext…`);
  child.kill('SIGTERM');
  setTimeout(() => child.kill('SIGKILL'), 20_000).unref();
});
child.on('exit', (code, signal) => process.exit(code ?? (signal ? 128 + (require('node:os').constants.signals[signal] ?? 0) : 1)));
