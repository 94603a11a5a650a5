/**
 * The package's entry points (package.json `exports`) each have one export list, and a name is exported
 * from two of them only on purpose: the agent's API (workflows/agent-api.ts, one list that `livecontext`
 * and `livecontext/workflow` both re-export whole) or a name on ALLOWED_TWICE below, with its reason.
 * Read from the sources' syntax: `export … from`, `export *` (followed), and exported declarations.
 */
import { readFileSync } from 'node:fs';
import path from 'node:path';
import ts from 'typescript';

const root = path.join(__dirname, '..', '..');

/** Names exported by more than one entry point on purpose (besides agent-api.ts's list), and why. */
const ALLOWED_TWICE: Record<string, string> = {
  connectSettings: 'clients and workers connect by the same settings',
  ConnectSettings: 'clients and workers connect by the same settings',
  livecontextDataConverter: 'clients and workers must share the payload codecs',
  CodecOptions: 'clients and workers must share the payload codecs',
  defineTool: 'tool modules import it from `livecontext` too (the README says it works); its home is `livecontext/worker`',
  Tool: 'goes with defineTool',
  ToolContext: 'goes with defineTool',
  ToolOutput: 'goes with defineTool',
  ToolRetryableError: 'goes with defineTool: a tool throws it for a passing fault',
  ToolTimeoutError: "goes with defineTool: what a retry policy's retryOn is offered for a timed-out attempt",
  ToolRetryPolicy: 'goes with defineTool',
};
/** The one list both `livecontext` and `livecontext/workflow` re-export whole. */
const AGENT_API = 'workflows/agent-api.ts';

/** The source file behind each entry of package.json `exports` (dist/x.js ← x.ts). */
function entryPoints(): Record<string, string> {
  const pkg = JSON.parse(readFileSync(path.join(root, 'package.json'), 'utf8')) as { exports: Record<string, string | { default: string }> };
  return Object.fromEntries(
    Object.entries(pkg.exports)
      .filter(([, target]) => typeof target !== 'string' || target.endsWith('.js'))
      .map(([entry, target]) => [entry, (typeof target === 'string' ? target : target.default).replace(/^\.\/dist\//, '').replace(/\.js$/, '.ts')]),
  );
}

/** The names a module exports, following `export *`. */
function exportedNames(file: string): Set<string> {
  const source = ts.createSourceFile(file, readFileSync(path.join(root, file), 'utf8'), ts.ScriptTarget.Latest);
  const names = new Set<string>();
  const resolve = (specifier: string) => path.relative(root, path.resolve(path.dirname(path.join(root, file)), `${specifier}.ts`));
  for (const node of source.statements) {
    if (ts.isExportDeclaration(node)) {
      if (node.exportClause && ts.isNamedExports(node.exportClause)) for (const e of node.exportClause.elements) names.add(e.name.text);
      else if (!node.exportClause && node.moduleSpecifier && ts.isStringLiteral(node.moduleSpecifier))
        for (const n of exportedNames(resolve(node.moduleSpecifier.text))) names.add(n);
      else throw new Error(`${file}: an export form this test does not read`);
    } else if (ts.canHaveModifiers(node) && ts.getModifiers(node)?.some((m) => m.kind === ts.SyntaxKind.ExportKeyword)) {
      if (ts.isVariableStatement(node)) for (const d of node.declarationList.declarations) names.add((d.name as ts.Identifier).text);
      else if ('name' in node && node.name && ts.isIdentifier(node.name as ts.Node)) names.add((node.name as ts.Identifier).text);
    }
  }
  return names;
}

const entries = entryPoints();

test('the entry points are the three the README describes, each with its source', () => {
  expect(entries).toEqual({ '.': 'index.ts', './worker': 'worker/index.ts', './workflow': 'workflows/package-entry.ts' });
});

test('a name is exported from two entry points only on purpose', () => {
  const agentApi = exportedNames(AGENT_API);
  const homes = new Map<string, string[]>();
  for (const [entry, file] of Object.entries(entries)) for (const name of exportedNames(file)) homes.set(name, [...(homes.get(name) ?? []), entry]);
  const twice = [...homes].filter(([, where]) => where.length > 1);
  expect(twice.length).toBeGreaterThan(0); // the reader sees the shared list
  const unexplained = twice
    .filter(([name, where]) => !(name in ALLOWED_TWICE) && !(agentApi.has(name) && where.join() === '.,./workflow'))
    .map(([name, where]) => `${name}: ${where.join(' and ')}`);
  expect(unexplained).toEqual([]);
  // Each allowed name is still exported twice: the list does not outlive its reason.
  expect(Object.keys(ALLOWED_TWICE).filter((name) => (homes.get(name)?.length ?? 0) < 2)).toEqual([]);
});

test('`livecontext` and `livecontext/workflow` re-export the agent API whole, rather than repeat it', () => {
  const reexports = (file: string) =>
    ts
      .createSourceFile(file, readFileSync(path.join(root, file), 'utf8'), ts.ScriptTarget.Latest)
      .statements.filter((s): s is ts.ExportDeclaration => ts.isExportDeclaration(s) && !s.exportClause && !!s.moduleSpecifier)
      .map((s) => path.relative(root, path.resolve(path.dirname(path.join(root, file)), `${(s.moduleSpecifier as ts.StringLiteral).text}.ts`)));
  expect(reexports(entries['.'])).toContain(AGENT_API);
  expect(reexports(entries['./workflow'])).toContain(AGENT_API);
  // And neither lists one of its names again by hand.
  const agentApi = exportedNames(AGENT_API);
  for (const file of [entries['.'], entries['./workflow']]) {
    const source = ts.createSourceFile(file, readFileSync(path.join(root, file), 'utf8'), ts.ScriptTarget.Latest);
    const listed = source.statements
      .filter((s): s is ts.ExportDeclaration => ts.isExportDeclaration(s) && !!s.exportClause && ts.isNamedExports(s.exportClause))
      .flatMap((s) => (s.exportClause as ts.NamedExports).elements.map((e) => e.name.text));
    expect({ file, repeated: listed.filter((n) => agentApi.has(n)) }).toEqual({ file, repeated: [] });
  }
});
