/**
 * Runs one command so that it cannot outlive the process that started it. The parent starts this
 * script with stdin a pipe and keeps the other end; when that end closes — the parent stopped it, or
 * exited for any reason, `kill -9` included, since the kernel closes a dead process's files — the
 * command gets SIGTERM, then SIGKILL after the grace period. It removes the command's owner record
 * (LIVECONTEXT_KEEPER_RECORD) when the command has ended. Node has no PR_SET_PDEATHSIG; the end of a
 * pipe is the portable sign that a parent is gone. SIGTERM, SIGINT and SIGHUP sent here stop the
 * command the same way. Exits with the command's exit code (128 + signal when a signal ended it).
 *
 * Usage: node child-keeper.cjs <grace-ms> <command> [args…]   (the command's output goes where ours does)
 * Plain Node, no dependencies (the dev server starts it, from sources and from dist/ alike).
 */
const { spawn } = require('node:child_process');
const fs = require('node:fs');
const os = require('node:os');

const [grace, command, ...args] = process.argv.slice(2);
if (!command) {
  console.error('usage: node child-keeper.cjs <grace-ms> <command> [args…]');
  process.exit(2);
}
const child = spawn(command, args, { stdio: ['ignore', 'inherit', 'inherit'] });
let stopping = false;

function stop(signal) {
  if (stopping) return;
  stopping = true;
  if (child.exitCode === null && child.signalCode === null) child.kill(signal);
  setTimeout(() => child.kill('SIGKILL'), Number(grace) || 10_000).unref();
}

process.stdin.on('data', () => {}); // nothing is ever sent: only the end matters
process.stdin.on('end', () => stop('SIGTERM'));
process.stdin.on('error', () => stop('SIGTERM'));
for (const signal of ['SIGTERM', 'SIGINT', 'SIGHUP']) process.on(signal, () => stop(signal === 'SIGINT' ? 'SIGINT' : 'SIGTERM'));

child.on('error', (err) => {
  console.error(`child-keeper: cannot run ${command}: ${err.message}`);
  process.exit(127);
});
child.on('exit', (code, signal) => {
  forgetOwner();
  process.exit(code ?? 128 + (os.constants.signals[signal] ?? 0));
});

/**
 * LIVECONTEXT_KEEPER_RECORD names the file that says who started the command (worker/dev-server-owner.ts);
 * once the command has ended it says nothing true, so it goes, if it is still the one about this keeper.
 */
function forgetOwner() {
  const file = process.env.LIVECONTEXT_KEEPER_RECORD;
  if (!file) return;
  try {
    if (JSON.parse(fs.readFileSync(file, 'utf8')).keeperPid === process.pid) fs.rmSync(file, { force: true });
  } catch {
    // no record, or not ours
  }
}
