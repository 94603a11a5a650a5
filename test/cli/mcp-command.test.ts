/**
 * The CLI's MCP parts as a user runs them: `livecontext mcp list [--json]` (servers, whether each
 * connects, their tools under the names agents see; exit 1 when one cannot be reached, never printing a
 * header's token), and `livecontext worker --mcp FILE` (a bad file refused at once; a good one starts
 * the servers, and stopping the worker ends them).
 */
import { spawn, spawnSync } from 'node:child_process';
import { mkdtempSync, readFileSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { cli } from '../support/cli';
import { filesystemServer, oddServer, pidOf } from '../support/mcp-servers';
import { eventually, testAddress, uniqueId } from '../support/temporal';

const token = 'hdr-token-5a4b3c2d1e0f';
const dir = mkdtempSync(path.join(tmpdir(), 'lc-mcp-cli-'));
const allowed = mkdtempSync(path.join(tmpdir(), 'lc-mcp-allowed-'));

function configFile(name: string, servers: Record<string, unknown>): string {
  const file = path.join(dir, name);
  writeFileSync(file, JSON.stringify({ mcpServers: servers }));
  return file;
}

test('mcp list --json: each server, whether it connects, and its tools', async () => {
  const file = configFile('two.json', {
    fs: filesystemServer(allowed),
    down: { url: 'http://127.0.0.1:1/mcp', headers: { Authorization: 'Bearer ${DOWN_TOKEN}' } },
  });
  const r = await cli(['mcp', 'list', '--mcp', file, '--json'], { env: { DOWN_TOKEN: token } });
  expect(r.code).toBe(1);
  const [fs, down] = JSON.parse(r.stdout);
  expect(fs).toMatchObject({ name: 'fs', transport: 'stdio', connected: true });
  expect(fs.tools).toEqual(
    expect.arrayContaining([
      expect.objectContaining({ name: 'fs__write_file', mcpName: 'write_file', needsApproval: true }),
      expect.objectContaining({ name: 'fs__read_text_file', mcpName: 'read_text_file', needsApproval: false }),
    ]),
  );
  expect(down).toMatchObject({ name: 'down', transport: 'streamable-http or sse', connected: false, tools: [] });
  expect(down.error).toMatch(/Cannot reach the MCP server "down" \(http:\/\/127\.0\.0\.1:1\/mcp\)/);
  expect(r.stdout + r.stderr).not.toContain(token);
});

test('mcp list as text; its mistakes as one line with exit 2', async () => {
  const r = await cli(['mcp', 'list', '--mcp', configFile('fs.json', { fs: filesystemServer(allowed) })]);
  expect(r.code).toBe(0);
  expect(r.stdout).toMatch(/^fs \(stdio\): connected, \d+ tools\n/);
  expect(r.stdout).toMatch(/\n {2}fs__write_file +\[needs approval\] Create a new file/);

  const missing = await cli(['mcp', 'list', '--mcp', path.join(dir, 'nope.json')]);
  expect(missing).toMatchObject({ code: 2, stdout: '' });
  expect(missing.stderr).toMatch(
    /^livecontext: There is no MCP configuration file at .*nope\.json\. Write one in the format .*\{"mcpServers": \{"fs": \{"command": "npx"/,
  );
  const invalid = await cli(['mcp', 'list', '--mcp', configFile('bad.json', { x: { command: 'a', url: 'http://b' } })]);
  expect(invalid.code).toBe(2);
  expect(invalid.stderr).toMatch(/mcpServers\.x: give either "command" \(stdio\) or "url" \(HTTP\)/);
  expect((await cli(['mcp', 'lst'])).stderr).toMatch(/Unknown mcp subcommand "lst"/);
});

test('mcp list without an mcp.json: where it looked and how to write one, exit 2', async () => {
  const empty = mkdtempSync(path.join(tmpdir(), 'lc-no-mcp-'));
  const r = await cli(['mcp', 'list'], { cwd: empty });
  expect(r).toMatchObject({ code: 2, stdout: '' });
  expect(r.stderr).toBe(
    `livecontext: No mcp.json here: livecontext mcp list looked for ${path.join(empty, 'mcp.json')} (give another file with --mcp FILE). ` +
      'Write one in the format Claude Desktop and Cursor use, e.g. {"mcpServers": {"fs": {"command": "npx", "args": ["-y", "@modelcontextprotocol/server-filesystem", "."]}}} (see docs/tools-and-mcp.md).\n',
  );
  expect(r.stderr).not.toMatch(/ENOENT|at .*\.js:\d+/);
});

test('mcp list ends when a server pages for ever, naming it; a tool with a too deep schema is named as not offered', async () => {
  const r = await cli(['mcp', 'list', '--mcp', configFile('odd.json', { endless: oddServer('endless'), odd: oddServer('paged') })]);
  expect(r.code).toBe(1);
  expect(r.stdout).toMatch(
    /^endless \(stdio\): unavailable — its tool list does not end: tools\/list still gave a nextCursor after 100 pages \(100 tools so far\); its tools are not offered\n/,
  );
  expect(r.stdout).toMatch(/\nodd \(stdio\): connected, 8 tools\n {2}odd__echo /);
  expect(r.stdout).toContain('\n  (not offered: tool "deep": its input schema is nested more than 32 levels deep)');
});

test('worker --mcp: a bad file stops it at once; a good one starts the servers, and stopping ends them', async () => {
  const bad = await cli(['worker', '--mcp', configFile('unset.json', { fs: { command: 'x', env: { K: '${SURELY_UNSET_VAR}' } } })]);
  expect(bad.code).toBe(2);
  expect(bad.stderr).toMatch(/uses \$\{SURELY_UNSET_VAR\}, which is not set/);

  const folder = mkdtempSync(path.join(tmpdir(), 'lc-mcp-worker-')); // its path finds the server's process
  const proc = spawn(
    process.execPath,
    [path.resolve(__dirname, '../../bin/livecontext.js'), 'worker', '--mcp', configFile('worker.json', { fs: filesystemServer(folder) })],
    {
      env: { ...process.env, TEMPORAL_ADDRESS: testAddress(), LIVECONTEXT_TASK_QUEUE: uniqueId('mcp-cli-worker') },
      stdio: ['ignore', 'pipe', 'pipe'],
    },
  );
  let out = '';
  proc.stdout!.on('data', (d) => (out += d));
  proc.stderr!.on('data', (d) => (out += d));
  const exited = new Promise<number | null>((resolve) => proc.once('exit', (code) => resolve(code)));
  await eventually(() => out.includes('Worker running') || proc.exitCode !== null, 90_000, 'the worker to start');
  expect(out).toContain('starting MCP servers: fs');
  expect(pidOf(folder)).toBeGreaterThan(0);
  proc.kill('SIGTERM');
  expect(await exited).toBe(0);
  await eventually(() => pidOf(folder) === undefined, 10_000, 'the MCP server to end with the worker');
});

test('`livecontext up` (what `npm start` runs) picks up ./mcp.json when present', () => {
  const cwd = mkdtempSync(path.join(tmpdir(), 'lc-up-mcp-'));
  writeFileSync(path.join(cwd, 'mcp.json'), JSON.stringify({ mcpServers: { fs: filesystemServer(allowed) } }));
  const r = spawnSync(process.execPath, [path.resolve(__dirname, '../../bin/livecontext.js'), 'up', uniqueId('up-mcp')], {
    cwd,
    input: 'buy milk\n',
    env: {
      ...process.env,
      TEMPORAL_ADDRESS: testAddress(),
      LIVECONTEXT_TASK_QUEUE: uniqueId('up-mcp'),
      LIVECONTEXT_MODEL: '',
      OPENAI_API_KEY: '',
      ANTHROPIC_API_KEY: '',
    },
    encoding: 'utf8',
    timeout: 120_000,
  });
  expect(r.status).toBe(0);
  expect(r.stderr).toContain('MCP servers from mcp.json: fs');
  expect(r.stdout).toMatch(/Saved notes\/note-1\.md\. /); // the chat works as without MCP
  expect(readFileSync(path.join(cwd, '.livecontext/worker.log'), 'utf8')).toMatch(/MCP server "fs": \d+ tools/);
  expect(pidOf(allowed)).toBeUndefined(); // ended with the worker
});
