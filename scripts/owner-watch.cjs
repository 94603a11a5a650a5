/**
 * Notices when the command that started this process has ended — `kill -9` included, which it cannot
 * be told of. `npm start` runs its script through `sh -c`, and the shell outlives npm, so this process's
 * parent alone says nothing: the processes watched are the parent and, while they are shells, their
 * parents, up to the first that is not one (npm). Plain Node, no dependencies.
 */
const { spawnSync } = require('node:child_process');
const fs = require('node:fs');

const SHELLS = new Set(['sh', 'dash', 'bash', 'zsh', 'ksh', 'ash', 'busybox']);

/** A process's parent and command name, or undefined when it is gone or cannot be read. */
function processInfo(pid) {
  try {
    const stat = fs.readFileSync(`/proc/${pid}/stat`, 'utf8'); // Linux: "pid (comm) state ppid …"
    const m = /^\d+ \((.*)\) \S+ (\d+)/s.exec(stat);
    if (m) return { ppid: Number(m[2]), comm: m[1] };
  } catch {
    // not Linux, or gone
  }
  const ps = spawnSync('ps', ['-o', 'ppid=,comm=', '-p', String(pid)], { encoding: 'utf8' });
  const m = /^\s*(\d+)\s+(.+?)\s*$/.exec(ps.stdout ?? '');
  return m ? { ppid: Number(m[1]), comm: m[2].split('/').pop() } : undefined;
}

/** The processes whose end means ours has no owner: the parent, and above it while it is a shell. */
function owners(pid = process.pid) {
  const chain = [];
  let info = processInfo(pid);
  for (let depth = 0; info && info.ppid > 1 && depth < 4; depth++) {
    chain.push(info.ppid);
    const parent = processInfo(info.ppid);
    if (!parent || !SHELLS.has(parent.comm)) break;
    info = parent;
  }
  return chain;
}

function alive(pid) {
  try {
    process.kill(pid, 0);
    return true;
  } catch (err) {
    return err.code === 'EPERM';
  }
}

/** Calls onGone once, when any of the owners has ended (checked every `everyMs`). Returns a stop function. */
function watchOwners(onGone, { everyMs = 500, pids = owners() } = {}) {
  const timer = setInterval(() => {
    const gone = pids.find((pid) => !alive(pid));
    if (gone === undefined) return;
    clearInterval(timer);
    onGone(gone);
  }, everyMs);
  timer.unref();
  return () => clearInterval(timer);
}

module.exports = { owners, watchOwners, processInfo };
