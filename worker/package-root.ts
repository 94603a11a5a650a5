/** The package's root folder, from sources (tsx) or from dist/ alike. */
import { existsSync } from 'node:fs';
import path from 'node:path';

export function packageRoot(): string {
  let dir = __dirname;
  while (!existsSync(path.join(dir, 'package.json')) || !existsSync(path.join(dir, 'scripts', 'temporal-cli.cjs'))) {
    const parent = path.dirname(dir);
    if (parent === dir) throw new Error('livecontext: cannot find the package root.');
    dir = parent;
  }
  return dir;
}
