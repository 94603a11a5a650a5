/**
 * Who started the dev server on a port: each start records the command, its pid and folder in the temp
 * folder (one file per port, as a port is one per machine), and removes the record when it stops the
 * server. So a later `npm start` that finds the port taken can say whose server it is using and whether
 * that server will go away with its owner — or was left behind by a process that has ended.
 */
import { readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';

interface OwnerRecord {
  /** The process that started the server (it stops the server when it exits). */
  pid: number;
  /** The process group the server runs in (scripts/child-keeper.cjs and the server). */
  keeperPid: number;
  command: string;
  cwd: string;
  startedAt: string;
}

export function ownerRecordPath(port: number): string {
  return path.join(tmpdir(), `livecontext-dev-server-${port}.json`);
}

export function recordOwner(port: number, o: { command: string; keeperPid: number }): void {
  const record: OwnerRecord = { pid: process.pid, keeperPid: o.keeperPid, command: o.command, cwd: process.cwd(), startedAt: new Date().toISOString() };
  try {
    writeFileSync(ownerRecordPath(port), `${JSON.stringify(record)}\n`);
  } catch {
    // Only a later message is less precise without it.
  }
}

/** Removes the record if it is still the one of the server `keeperPid` ran. */
export function clearOwner(port: number, keeperPid: number | undefined): void {
  if (readOwner(port)?.keeperPid === keeperPid) rmSync(ownerRecordPath(port), { force: true });
}

function readOwner(port: number): OwnerRecord | undefined {
  try {
    const r = JSON.parse(readFileSync(ownerRecordPath(port), 'utf8')) as OwnerRecord;
    return Number.isInteger(r.pid) && Number.isInteger(r.keeperPid) ? r : undefined;
  } catch {
    return undefined;
  }
}

function alive(pid: number): boolean {
  try {
    process.kill(pid, 0);
    return true;
  } catch (err) {
    return (err as NodeJS.ErrnoException).code === 'EPERM';
  }
}

/** Who started the server listening on `port`, as the end of a sentence ("…, started by …"). */
export function describeOwner(port: number): string {
  const r = readOwner(port);
  if (!r) return 'not started by livecontext (or by a version that kept no record)';
  const by = `started by \`${r.command}\` (pid ${r.pid} in ${r.cwd})`;
  if (alive(r.pid)) return `${by}; it stops when that command exits`;
  return `${by}, which has ended: the server was left behind (stop it with \`kill -- -${r.keeperPid}\`)`;
}
