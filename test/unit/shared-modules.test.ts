/**
 * workflows/shared-modules.ts (preloaded into workflow bundles) must import every module of the agent
 * core: one it misses would be shared anyway, as a dependency of the others, but deep-frozen by
 * Temporal — zod schemas included, which then fail when they are first used.
 */
import { readFileSync, readdirSync } from 'node:fs';
import path from 'node:path';

const root = path.join(__dirname, '..', '..');

function agentModules(dir = path.join(root, 'agent')): string[] {
  return readdirSync(dir, { withFileTypes: true }).flatMap((e) =>
    e.isDirectory()
      ? agentModules(path.join(dir, e.name))
      : e.name.endsWith('.ts')
        ? [path.relative(path.join(root, 'agent'), path.join(dir, e.name)).replace(/\.ts$/, '')]
        : [],
  );
}

test('the shared modules import every agent module', () => {
  const source = readFileSync(path.join(root, 'workflows', 'shared-modules.ts'), 'utf8');
  const imported = new Set([...source.matchAll(/from '\.\.\/agent\/([^']+)'/g)].map((m) => m[1]));
  const modules = agentModules();
  expect(modules.length).toBeGreaterThan(30);
  expect(modules.filter((m) => !imported.has(m))).toEqual([]);
});
