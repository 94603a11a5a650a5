/** The `a2aAgents` configuration: validation with clear errors, the card's URL, the token read from a named variable. */
import { mkdtempSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { a2aAgentsIn, cardUrlOf, loadA2aAgentsFile, parseA2aConfig } from '../../activities/a2a/config';
import { loadMcpConfigFile } from '../../activities/mcp/config';

const env = { B_TOKEN: 'b-token-0123456789' };

test('entries by name: the card URL from a base URL or as given, the token from the variable tokenEnv names', () => {
  const [billing, search] = parseA2aConfig(
    {
      a2aAgents: {
        billing: { url: 'https://agents.example/a2a/agents/billing', tokenEnv: 'B_TOKEN', description: 'Bills and invoices.', timeout: 600_000 },
        search: { url: 'https://search.example/cards/search.json' },
        old: { url: 'https://old.example', disabled: true },
      },
    },
    env,
  );
  expect(billing).toEqual({
    name: 'billing',
    cardUrl: 'https://agents.example/a2a/agents/billing/.well-known/agent-card.json',
    description: 'Bills and invoices.',
    timeoutMs: 600_000,
    token: env.B_TOKEN,
    secrets: [{ name: 'B_TOKEN', value: env.B_TOKEN }],
  });
  expect(search).toEqual({ name: 'search', cardUrl: 'https://search.example/cards/search.json', secrets: [] });
  expect(cardUrlOf('http://127.0.0.1:8787/')).toBe('http://127.0.0.1:8787/.well-known/agent-card.json');
  // The inner object alone is read the same.
  expect(parseA2aConfig({ search: { url: 'https://search.example' } }, env)).toHaveLength(1);
});

test('beside mcpServers in one file: only a2aAgents is read, and a file without it has none', () => {
  const file = { mcpServers: { fs: { command: 'npx' } }, a2aAgents: { b: { url: 'http://localhost:1/' } } };
  expect(a2aAgentsIn(file, env).map((a) => a.name)).toEqual(['b']);
  expect(a2aAgentsIn({ mcpServers: {} }, env)).toEqual([]);
  // `livecontext worker --mcp` reads both from one file, or a file with agents only.
  const dir = mkdtempSync(path.join(tmpdir(), 'lc-a2a-cfg-'));
  writeFileSync(path.join(dir, 'both.json'), JSON.stringify(file));
  writeFileSync(path.join(dir, 'agents.json'), JSON.stringify({ a2aAgents: file.a2aAgents }));
  expect(loadMcpConfigFile(path.join(dir, 'both.json'), env).map((s) => s.name)).toEqual(['fs']);
  expect(loadMcpConfigFile(path.join(dir, 'agents.json'), env)).toEqual([]);
  expect(loadA2aAgentsFile(path.join(dir, 'agents.json'), env).map((a) => a.name)).toEqual(['b']);
});

test('clear errors: a missing token variable (named, never a value), a bad URL or name, an unknown field', () => {
  expect(() => parseA2aConfig({ a2aAgents: { b: { url: 'http://x/', tokenEnv: 'NOT_SET' } } }, env)).toThrow(
    /a2aAgents\.b\.tokenEnv names NOT_SET, which is not set in the worker's environment/,
  );
  expect(() => parseA2aConfig({ a2aAgents: { b: { url: 'not a url' } } }, env)).toThrow(/a2aAgents\.b\.url is not a URL/);
  expect(() => parseA2aConfig({ a2aAgents: { 'b c': { url: 'http://x/' } } }, env)).toThrow(/a2aAgents\."b c" is the tool's name/);
  expect(() => parseA2aConfig({ a2aAgents: { b: { url: 'http://x/', token: 'inline' } } }, env)).toThrow(/Unrecognized key.*token/);
  expect(() => parseA2aConfig({ a2aAgents: { b: { url: 'http://x/', tokenEnv: 'B-TOKEN' } } }, env)).toThrow(/an environment variable name/);
  expect(() => parseA2aConfig({ a2aAgents: { b: {} } }, env)).toThrow(/a2aAgents\.b\.url/);
});
