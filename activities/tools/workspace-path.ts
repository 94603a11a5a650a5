/** Resolves a model-supplied path inside a workspace root, refusing anything that leaves it. */
import { realpath } from 'node:fs/promises';
import path from 'node:path';

export class PathEscapeError extends Error {
  constructor(message: string) {
    super(message);
    this.name = new.target.name;
  }
}

export async function resolveInWorkspace(root: string, relative: string): Promise<string> {
  if (path.isAbsolute(relative)) throw new PathEscapeError(`"${relative}" is absolute; use a path relative to the workspace.`);
  const rootReal = await realpath(root);
  const target = path.resolve(rootReal, relative);
  if (!isInside(rootReal, target)) throw new PathEscapeError(`"${relative}" leaves the workspace.`);
  // Follow symlinks on the longest existing prefix: a link inside the root may point outside it.
  let existing = target;
  for (;;) {
    try {
      const real = await realpath(existing);
      if (!isInside(rootReal, real)) throw new PathEscapeError(`"${relative}" leaves the workspace through a symlink.`);
      break;
    } catch (err) {
      if (err instanceof PathEscapeError) throw err;
      const parent = path.dirname(existing);
      if (parent === existing) break;
      existing = parent;
    }
  }
  return target;
}

function isInside(root: string, target: string): boolean {
  const rel = path.relative(root, target);
  return rel === '' || (!rel.startsWith('..') && !path.isAbsolute(rel));
}
