/**
 * Source imports name files, never folders. `require('../agent')` resolves to `agent.json` (or `agent.js`)
 * before the `agent/` folder, so `livecontext export my-agent --out agent.json` run in the checkout used
 * to break every test and TypeScript tools module with an error that named neither file. Every import of
 * a folder names its index (`'../agent/index'`): a user's file beside a source folder cannot shadow it.
 * `node scripts/fix-folder-imports.cjs` rewrites any that come back.
 */
import { execFileSync } from 'node:child_process';
import { cpSync, existsSync, mkdtempSync, readdirSync, readFileSync, rmSync, statSync, symlinkSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';

const ROOT = path.resolve(__dirname, '../..');
const SKIP = new Set(['node_modules', 'dist', '.git', '.livecontext', 'coverage']);

/** `from '…'`, `import '…'`, `import('…')`, `require('…')`, `require.resolve('…')`, `jest.mock('…')`: the relative ones. */
const IMPORT =
  /(?:\bfrom\s+|\bimport\s*\(\s*|\bimport\s+|\brequire(?:\.resolve)?\s*\(\s*|\bjest\.(?:mock|doMock|requireActual)\s*\(\s*)(['"`])(\.{1,2}(?:\/[^'"`\n]*)?)\1/g;

function sourceFiles(dir: string): string[] {
  return readdirSync(dir, { withFileTypes: true }).flatMap((d) => {
    if (SKIP.has(d.name)) return [];
    const full = path.join(dir, d.name);
    if (d.isDirectory()) return sourceFiles(full);
    return /\.(?:[cm]?ts|[cm]?js)$/.test(d.name) ? [full] : [];
  });
}

/** `file: specifier` for every relative import in `files` that names a folder. */
export function folderImports(files: string[]): string[] {
  return files.flatMap((file) =>
    [...readFileSync(file, 'utf8').matchAll(IMPORT)]
      .map((m) => m[2])
      .filter((spec) => {
        const target = path.resolve(path.dirname(file), spec);
        return existsSync(target) && statSync(target).isDirectory();
      })
      .map((spec) => `${path.relative(ROOT, file)}: '${spec}' names a folder; name its index ('${spec.replace(/\/$/, '')}/index')`),
  );
}

test('no source, test or script imports a folder by its bare name', () => {
  const files = sourceFiles(ROOT);
  expect(files.length).toBeGreaterThan(100); // the walk found the tree
  expect(folderImports(files)).toEqual([]);
});

test('the check sees a bare folder import in every form', () => {
  const dir = mkdtempSync(path.join(tmpdir(), 'lc-imports-'));
  try {
    cpSync(path.join(ROOT, 'agent/widgets/index.ts'), path.join(dir, 'lib/index.ts'));
    const forms = [
      `import { a } from './lib';`,
      `export * from "./lib/";`,
      `const b = require('./lib');`,
      `void import('./lib');`,
      `require.resolve('./lib')`,
      `import './lib';`,
    ];
    const named = [`import { a } from './lib/index';`, `import { c } from './lib/index.ts';`];
    writeFileSync(path.join(dir, 'bare.ts'), forms.join('\n'));
    writeFileSync(path.join(dir, 'named.ts'), named.join('\n'));
    expect(folderImports([path.join(dir, 'bare.ts')])).toHaveLength(forms.length);
    expect(folderImports([path.join(dir, 'named.ts')])).toEqual([]);
  } finally {
    rmSync(dir, { recursive: true, force: true });
  }
});

test('files named like source folders in the checkout root (agent.json, workflows.json, …) do not change what loads', () => {
  // A copy of the sources, so the checkout is never touched; node_modules is linked (packages only).
  const dir = mkdtempSync(path.join(tmpdir(), 'lc-shadow-'));
  try {
    for (const name of ['index.ts', 'package.json', 'tsconfig.json', 'agent', 'activities', 'workflows', 'worker', 'client', 'cli', 'common', 'gateway']) {
      cpSync(path.join(ROOT, name), path.join(dir, name), { recursive: true });
    }
    symlinkSync(path.join(ROOT, 'node_modules'), path.join(dir, 'node_modules'), 'dir');
    // What `livecontext export … --out <name>.json` writes, under every name a source folder has.
    const shadows = [
      'agent.json',
      'activities.json',
      'workflows.json',
      'worker.json',
      'client.json',
      'common.json',
      'agent/widgets.json',
      'activities/mcp.json',
    ];
    for (const f of shadows) writeFileSync(path.join(dir, f), JSON.stringify({ formatVersion: 1, entries: [] }));
    // A TypeScript tools module as docs/tools-and-mcp.md writes it, loaded as `livecontext worker --tools` loads one.
    writeFileSync(
      path.join(dir, 'my-tools.ts'),
      `import { z } from 'zod';\nimport { defineTool } from 'livecontext/worker';\nexport const tools = [defineTool({ name: 'echo', description: 'Echo.', parameters: z.object({ s: z.string() }), async execute({ s }) { return s; } })];\n`,
    );
    const script = `
      const { loadToolsModule } = require('./worker/tools-module.ts');
      const { enumerateWidgetTools } = require('./agent/index.ts');
      const { WORKFLOWS_PATH } = require('./worker/create-worker.ts');
      loadToolsModule('./my-tools.ts').then((tools) => {
        console.log(JSON.stringify({ widgetTools: enumerateWidgetTools().map((t) => t.name), workflows: require('path').relative(process.cwd(), WORKFLOWS_PATH), tools: tools.map((t) => t.name) }));
      }, (err) => { console.error(err); process.exit(1); });`;
    const out = execFileSync(process.execPath, ['--require', require.resolve('tsx/cjs'), '-e', script], {
      cwd: dir,
      encoding: 'utf8',
      env: { ...process.env, NODE_OPTIONS: '' },
    });
    const loaded = JSON.parse(out.trim().split('\n').pop()!);
    expect(loaded).toEqual({
      widgetTools: expect.arrayContaining(['memory_notebook_replace']),
      workflows: path.join('workflows', 'index.ts'),
      tools: ['echo'],
    });
  } finally {
    rmSync(dir, { recursive: true, force: true });
  }
});
