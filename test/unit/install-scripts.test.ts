/**
 * Issue 26: a fresh clone's first `npm install` (npm 11) printed a warning for each dependency whose
 * install script nobody had reviewed. package.json's `allowScripts` approves every dependency of the
 * lock file that has one, so the warnings stay away and a future npm that blocks unreviewed scripts
 * still runs the ones the project needs (esbuild's and @swc/core's put their native binaries in place).
 */
import { readFileSync } from 'node:fs';
import path from 'node:path';

const root = path.resolve(__dirname, '../..');
const read = (f: string) => JSON.parse(readFileSync(path.join(root, f), 'utf8'));

test('every dependency with an install script is approved in package.json', () => {
  const lock = read('package-lock.json') as { packages: Record<string, { hasInstallScript?: boolean; optional?: boolean }> };
  const withScripts = Object.entries(lock.packages)
    .filter(([, p]) => p.hasInstallScript)
    .map(([where]) => where.slice(where.lastIndexOf('node_modules/') + 'node_modules/'.length));
  expect(withScripts.length).toBeGreaterThan(0);
  const approved = read('package.json').allowScripts as Record<string, boolean>;
  for (const name of new Set(withScripts)) expect({ name, approved: approved?.[name] }).toEqual({ name, approved: true });
});
