/**
 * CPU time of the processes a benchmark runs on, read from /proc (Linux): this process (the client, and the
 * workers when they run in it), a worker process of its own, and the dev server this process started. On a
 * shared machine wall-clock ratios swing with the load; the CPU time one side uses per turn does not.
 */
import { readFileSync, readdirSync } from 'node:fs';

/** Clock ticks per second of /proc's utime/stime (USER_HZ, 100 on Linux). */
const TICKS = 100;

/** User + system CPU seconds of a process (or of one thread: `/proc/<pid>/task/<tid>`), or null where /proc cannot tell. */
export function cpuSecondsOf(pid: number, tid?: number): number | null {
  try {
    const stat = readFileSync(tid === undefined ? `/proc/${pid}/stat` : `/proc/${pid}/task/${tid}/stat`, 'utf8');
    const fields = stat.slice(stat.lastIndexOf(')') + 2).split(' '); // after "pid (comm) "
    return (Number(fields[11]) + Number(fields[12])) / TICKS; // utime, stime
  } catch {
    return null;
  }
}

function parentOf(pid: number): number | null {
  try {
    const stat = readFileSync(`/proc/${pid}/stat`, 'utf8');
    return Number(stat.slice(stat.lastIndexOf(')') + 2).split(' ')[1]);
  } catch {
    return null;
  }
}

/** The Temporal dev server this process started (a child whose command line runs `server start-dev`), or null. */
export function devServerPid(): number | null {
  for (const entry of safeReaddir('/proc')) {
    const pid = Number(entry);
    if (!Number.isInteger(pid) || parentOf(pid) !== process.pid) continue;
    try {
      if (/start-dev/.test(readFileSync(`/proc/${pid}/cmdline`, 'utf8'))) return pid;
    } catch {
      // gone meanwhile
    }
  }
  return null;
}

function safeReaddir(dir: string): string[] {
  try {
    return readdirSync(dir);
  } catch {
    return [];
  }
}

/** This process's CPU seconds split by thread: the main JS thread (client, activities, the worker's JS side), Temporal core's Rust threads, and the rest (workflow threads, V8's GC and compiler threads, libuv). */
function ownThreads(): { main: number; core: number; other: number } {
  const split = { main: 0, core: 0, other: 0 };
  for (const tid of safeReaddir('/proc/self/task').map(Number)) {
    const s = cpuSecondsOf(process.pid, tid) ?? 0;
    let comm = '';
    try {
      comm = readFileSync(`/proc/self/task/${tid}/comm`, 'utf8').trim();
    } catch {
      continue; // thread ended meanwhile (its time is lost to the split, not to the process total)
    }
    if (tid === process.pid) split.main += s;
    else if (comm.startsWith('tokio')) split.core += s;
    else split.other += s;
  }
  return split;
}

interface Reading {
  self: number;
  threads: { main: number; core: number; other: number };
  server: number | null;
  worker: number | null;
}

/** CPU ms per unit (turn, agent) used between start() and stop(), per process. */
export interface CpuPerUnit {
  /** This process (client; with in-process workers, client + workers). */
  benchProcessMs: number;
  /** This process's share by thread: main JS thread, Temporal core (Rust) threads, other threads. */
  benchThreadsMs: { main: number; core: number; other: number };
  /** A worker process of its own, when one was given. */
  workerProcessMs?: number | null;
  /** The dev server (null when it could not be found). */
  serverMs: number | null;
  /** Sum of the above processes. */
  totalMs: number;
}

/** Reads CPU time now; `stop(units)` gives ms per unit since. `workerPid`: a worker process to read as well. */
export function startCpuMeter(workerPid?: number): { stop(units: number): CpuPerUnit } {
  const serverPid = devServerPid();
  const read = (): Reading => {
    const u = process.cpuUsage();
    return {
      self: (u.user + u.system) / 1e6,
      threads: ownThreads(),
      server: serverPid === null ? null : cpuSecondsOf(serverPid),
      worker: workerPid === undefined ? null : cpuSecondsOf(workerPid),
    };
  };
  const a = read();
  return {
    stop(units: number): CpuPerUnit {
      const b = read();
      const per = (x: number) => Math.round(((x * 1000) / units) * 100) / 100;
      const diff = (x: number | null, y: number | null) => (x === null || y === null ? null : per(y - x));
      const result: CpuPerUnit = {
        benchProcessMs: per(b.self - a.self),
        benchThreadsMs: {
          main: per(b.threads.main - a.threads.main),
          core: per(b.threads.core - a.threads.core),
          other: per(b.threads.other - a.threads.other),
        },
        serverMs: diff(a.server, b.server),
        totalMs: 0,
      };
      if (workerPid !== undefined) result.workerProcessMs = diff(a.worker, b.worker);
      result.totalMs = Math.round((result.benchProcessMs + (result.serverMs ?? 0) + (result.workerProcessMs ?? 0)) * 100) / 100;
      return result;
    },
  };
}

/**
 * Waits until the dev server is quiet (under `busyShare` of one core over a second, twice in a row) or
 * `maxMs` passed, and says how long it was busy: what an earlier benchmark (or side) left it doing — its
 * queues draining, timers of agents left behind — is then not counted against the side measured next.
 */
export async function untilServerQuiet(maxMs = 60_000, busyShare = 0.05): Promise<{ waitedMs: number; quiet: boolean }> {
  const pid = devServerPid();
  const t0 = performance.now();
  if (pid === null) return { waitedMs: 0, quiet: false };
  let calm = 0;
  while (performance.now() - t0 < maxMs) {
    const a = cpuSecondsOf(pid);
    await new Promise((r) => setTimeout(r, 1_000));
    const b = cpuSecondsOf(pid);
    if (a === null || b === null) break;
    calm = b - a < busyShare ? calm + 1 : 0;
    if (calm >= 2) return { waitedMs: Math.round(performance.now() - t0), quiet: true };
  }
  return { waitedMs: Math.round(performance.now() - t0), quiet: false };
}
