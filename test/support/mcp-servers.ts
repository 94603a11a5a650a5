/**
 * The reference MCP servers from npm (dev dependencies), as `mcpServers` entries and, for Streamable
 * HTTP, as a process of their own. Run with this Node, so no `npx` download happens in a test.
 */
import { type ChildProcess, spawn } from 'node:child_process';
import { readFileSync, readdirSync } from 'node:fs';
import path from 'node:path';
import { freePort } from '../../common/ports';
import { eventually } from './temporal';

const PACKAGES = path.resolve(__dirname, '../../node_modules/@modelcontextprotocol');
export const FILESYSTEM_BIN = path.join(PACKAGES, 'server-filesystem/dist/index.js');
export const EVERYTHING_BIN = path.join(PACKAGES, 'server-everything/dist/index.js');

const ROOT = path.resolve(__dirname, '../..');
export const ODD_SERVER = path.join(ROOT, 'test/fixtures/odd-mcp-server.ts');
export const META_SERVER = path.join(ROOT, 'test/fixtures/meta-mcp-server.ts');

/** The test server whose tool `show_meta` answers the `_meta` of its `tools/call` (test/fixtures/meta-mcp-server.ts), over stdio. */
export function metaServer() {
  return { command: process.execPath, args: ['--import', 'tsx', META_SERVER], cwd: ROOT };
}

/**
 * The misbehaving test server (test/fixtures/odd-mcp-server.ts) over stdio: `endless` pages for ever,
 * `paged` lists its tools two a page; `marker` (an ignored extra argument) lets a test find its process.
 */
export function oddServer(mode: 'endless' | 'circle' | 'paged', marker = 'odd', env: Record<string, string> = {}) {
  return { command: process.execPath, args: ['--import', 'tsx', ODD_SERVER, mode, marker], cwd: ROOT, env };
}

/** server-filesystem over stdio, allowed only `folder`. */
export function filesystemServer(folder: string) {
  return { command: process.execPath, args: [FILESYSTEM_BIN, folder] };
}

/** server-everything over stdio; `marker` (an ignored extra argument) lets a test find its process. */
export function everythingStdio(marker: string, env: Record<string, string> = {}) {
  return { command: process.execPath, args: [EVERYTHING_BIN, 'stdio', marker], env };
}

export interface HttpEverything {
  url: string;
  proc: ChildProcess;
  stop(): Promise<void>;
}

/**
 * server-everything in its Streamable HTTP mode (`index.js streamableHttp`, at /mcp) or its legacy SSE
 * mode (`index.js sse`, at /sse), on a free PORT (or `onPort`: a server started again where one was).
 */
export async function startEverythingHttp(mode: 'streamableHttp' | 'sse' = 'streamableHttp', onPort?: number): Promise<HttpEverything> {
  const port = onPort ?? (await freePort());
  const proc = spawn(process.execPath, [EVERYTHING_BIN, mode], { env: { ...process.env, PORT: String(port) }, stdio: ['ignore', 'pipe', 'pipe'] });
  let out = '';
  proc.stdout!.on('data', (d) => (out += d));
  proc.stderr!.on('data', (d) => (out += d));
  const exited = new Promise<void>((resolve) => proc.once('exit', () => resolve()));
  await eventually(() => /listening on port|running on port/.test(out) || proc.exitCode !== null, 30_000, 'server-everything (HTTP) to listen');
  if (proc.exitCode !== null) throw new Error(`server-everything (HTTP) exited:\n${out}`);
  return {
    url: `http://127.0.0.1:${port}/${mode === 'sse' ? 'sse' : 'mcp'}`,
    proc,
    async stop() {
      if (proc.exitCode === null && proc.signalCode === null) proc.kill('SIGKILL');
      await exited;
    },
  };
}

/** The pid of the one process whose command line contains `marker` (a stdio server this test started). */
export function pidOf(marker: string): number | undefined {
  for (const entry of readdirSync('/proc')) {
    if (!/^\d+$/.test(entry) || Number(entry) === process.pid) continue;
    try {
      if (readFileSync(`/proc/${entry}/cmdline`, 'utf8').split('\0').includes(marker)) return Number(entry);
    } catch {
      /* gone already */
    }
  }
  return undefined;
}
