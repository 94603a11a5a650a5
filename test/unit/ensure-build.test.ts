/**
 * The CLI compiles dist/ when it is older than the sources, so it is never stale in a checkout: every
 * folder of shipped TypeScript must count as a source (gateway/, reached through cli/serve.ts, was not,
 * so `livecontext serve` kept running an old gateway after an edit).
 */
import { mkdirSync, mkdtempSync, readdirSync, statSync, utimesSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';

// eslint-disable-next-line @typescript-eslint/no-require-imports
const { isStale, SOURCES } = require('../../scripts/ensure-build.cjs') as { isStale(root: string): boolean; SOURCES: string[] };

const root = path.resolve(__dirname, '../..');
/** Folders whose TypeScript is not shipped in dist/. */
const NOT_SHIPPED = new Set(['test', 'bench', 'scripts', 'node_modules', 'dist']);

function hasTypeScript(dir: string): boolean {
  return readdirSync(dir, { withFileTypes: true }).some((e) => (e.isDirectory() ? hasTypeScript(path.join(dir, e.name)) : e.name.endsWith('.ts')));
}

test('every folder of shipped TypeScript is a source of the build', () => {
  const folders = readdirSync(root, { withFileTypes: true })
    .filter((e) => e.isDirectory() && !e.name.startsWith('.') && !NOT_SHIPPED.has(e.name) && hasTypeScript(path.join(root, e.name)))
    .map((e) => e.name);
  expect(folders).toContain('gateway');
  expect(SOURCES).toEqual(expect.arrayContaining(folders));
});

test('a change in any source folder, gateway/ included, makes dist/ stale', () => {
  const dir = mkdtempSync(path.join(tmpdir(), 'lc-build-'));
  const past = (Date.now() - 60_000) / 1000;
  writeFileSync(path.join(dir, 'index.ts'), '');
  for (const folder of ['agent', 'gateway']) {
    mkdirSync(path.join(dir, folder));
    writeFileSync(path.join(dir, folder, 'a.ts'), '');
  }
  mkdirSync(path.join(dir, 'dist'));
  writeFileSync(path.join(dir, 'dist', '.build-stamp'), '');
  for (const p of ['index.ts', 'agent/a.ts', 'agent', 'gateway/a.ts', 'gateway', '.']) utimesSync(path.join(dir, p), past, past);
  expect(isStale(dir)).toBe(false);

  const edited = path.join(dir, 'gateway', 'a.ts');
  writeFileSync(edited, 'export {};');
  const later = statSync(path.join(dir, 'dist', '.build-stamp')).mtimeMs / 1000 + 5;
  utimesSync(edited, later, later);
  expect(isStale(dir)).toBe(true);
});

test('a fresh clone is told it is the first build, not that the sources changed', () => {
  // eslint-disable-next-line @typescript-eslint/no-require-imports
  const { staleReason, BUILD_MESSAGE } = require('../../scripts/ensure-build.cjs') as {
    staleReason(root: string): string | null;
    BUILD_MESSAGE: Record<string, string>;
  };
  const dir = mkdtempSync(path.join(tmpdir(), 'lc-clone-'));
  writeFileSync(path.join(dir, 'index.ts'), '');
  expect(staleReason(dir)).toBe('first');
  expect(BUILD_MESSAGE.first).toBe('livecontext: building livecontext (first run: compiling the TypeScript sources to dist/, once)…');
  expect(BUILD_MESSAGE.first).not.toMatch(/changed/);
  mkdirSync(path.join(dir, 'dist'));
  writeFileSync(path.join(dir, 'dist', '.build-stamp'), '');
  const past = (Date.now() - 60_000) / 1000;
  utimesSync(path.join(dir, 'index.ts'), past, past);
  expect(staleReason(dir)).toBeNull();
});
