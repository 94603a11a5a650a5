/** The `mcpServers` file: validation with clear errors, `${VAR}` expansion, and which values are secrets. */
import { mkdtempSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { loadMcpConfigFile, parseMcpConfig } from '../../activities/mcp/config';

const env = { DOCS_TOKEN: 'tok-0123456789abcdef', HOME: '/home/someone', REGION: 'eu-west-1', PLAIN: 'production-mode' };

test('stdio and URL servers, with ${VAR} from the environment', () => {
  const [fs, docs, legacy] = parseMcpConfig(
    {
      mcpServers: {
        fs: { command: 'npx', args: ['-y', '@modelcontextprotocol/server-filesystem', '${HOME}/notes'], env: { API_KEY: '${DOCS_TOKEN}', MODE: '${PLAIN}' } },
        docs: { url: 'https://docs.example/${REGION}/mcp', headers: { Authorization: 'Bearer ${DOCS_TOKEN}' } },
        legacy: { type: 'sse', url: 'http://localhost:9000/sse', timeout: 1000 },
        off: { command: 'x', disabled: true },
      },
    },
    env,
  );
  expect(fs).toMatchObject({
    name: 'fs',
    transport: 'stdio',
    command: 'npx',
    args: ['-y', '@modelcontextprotocol/server-filesystem', '/home/someone/notes'],
    env: { API_KEY: env.DOCS_TOKEN, MODE: 'production-mode' },
  });
  expect(docs).toMatchObject({
    name: 'docs',
    transport: 'http-or-sse',
    url: 'https://docs.example/eu-west-1/mcp',
    headers: { Authorization: `Bearer ${env.DOCS_TOKEN}` },
  });
  expect(legacy).toMatchObject({ transport: 'sse', timeoutMs: 1000 });
  // Everything from env and headers is a secret (a bearer token also on its own); args and the URL are not.
  expect(fs.secrets.map((s) => s.value)).toEqual(expect.arrayContaining([env.DOCS_TOKEN, 'production-mode']));
  expect(fs.secrets.map((s) => s.value)).not.toContain('/home/someone/notes');
  expect(docs.secrets.map((s) => s.value)).toEqual(expect.arrayContaining([`Bearer ${env.DOCS_TOKEN}`, env.DOCS_TOKEN]));
  expect(docs.secrets.map((s) => s.value)).not.toContain('eu-west-1');
});

test('the inner object alone is accepted; a default after :- fills an unset variable', () => {
  const [s] = parseMcpConfig({ x: { command: 'run', args: ['${MISSING:-fallback}'] } }, {});
  expect(s).toMatchObject({ name: 'x', args: ['fallback'] });
});

test('mistakes are refused with the field and the reason', () => {
  expect(() => parseMcpConfig({ mcpServers: { a: { command: 'x', url: 'http://y' } } })).toThrow(
    /mcpServers\.a: give either "command" \(stdio\) or "url" \(HTTP\), not both or neither/,
  );
  expect(() => parseMcpConfig({ mcpServers: { a: {} } })).toThrow(/mcpServers\.a: give either/);
  expect(() => parseMcpConfig({ mcpServers: { a: { command: 'x', args: 'not a list' } } })).toThrow(/mcpServers\.a\.args: /);
  expect(() => parseMcpConfig({ mcpServers: { a: { type: 'sse', command: 'x' } } })).toThrow(/"type" does not match/);
  expect(() => parseMcpConfig({ mcpServers: { a: { url: 'not a url' } } })).toThrow(/mcpServers\.a\.url is not a URL/);
  expect(() => parseMcpConfig([])).toThrow(/Invalid the MCP configuration|mcpServers/);
  // An unset variable is named, and the value of anything else never appears in the message.
  expect(() => parseMcpConfig({ mcpServers: { d: { url: 'http://h/mcp', headers: { Authorization: 'Bearer ${NOPE_TOKEN}' } } } }, env)).toThrow(
    /mcpServers\.d\.headers\.Authorization uses \$\{NOPE_TOKEN\}, which is not set in the worker's environment/,
  );
});

test('a file: unreadable, not JSON, or valid', () => {
  const dir = mkdtempSync(path.join(tmpdir(), 'lc-mcp-config-'));
  expect(() => loadMcpConfigFile(path.join(dir, 'none.json'))).toThrow(
    /^There is no MCP configuration file at .*none\.json\. Write one in the format Claude Desktop and Cursor use, e\.g\. \{"mcpServers"/,
  );
  expect(() => loadMcpConfigFile(dir)).toThrow(/^Cannot read the MCP configuration .*: it is a folder\.$/);
  writeFileSync(path.join(dir, 'bad.json'), '{"mcpServers": ');
  expect(() => loadMcpConfigFile(path.join(dir, 'bad.json'))).toThrow(/bad\.json is not valid JSON/);
  writeFileSync(path.join(dir, 'ok.json'), JSON.stringify({ mcpServers: { fs: { command: 'node', args: ['server.js'] } } }));
  expect(loadMcpConfigFile(path.join(dir, 'ok.json'))).toEqual([
    { name: 'fs', transport: 'stdio', command: 'node', args: ['server.js'], env: {}, secrets: [] },
  ]);
});
