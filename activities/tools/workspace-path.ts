/** Resolves a model-supplied path inside a workspace root, refusing anything that leaves it. */
import { lstat, realpath } from 'node:fs/promises';
import path from 'node:path';
import { LivecontextError } from '../../agent/errors';

/** A path a tool was given leads out of the agent's workspace (or through a link that might). */
export class PathEscapeError extends LivecontextError {
  constructor(message: string) {
    super('PATH_ESCAPE', message);
  }
}

/**
 * Returns the real path to open. Each existing component is lstat-ed; a symlink is followed only when
 * its target exists and lies inside the workspace. A dangling link is refused: writing through it
 * would create its target, wherever that is. Components that do not exist yet will be created inside.
 */
export async function resolveInWorkspace(root: string, relative: string): Promise<string> {
  if (path.isAbsolute(relative)) throw new PathEscapeError(`"${relative}" is absolute; use a path relative to the workspace.`);
  const rootReal = await realpath(root);
  const target = path.resolve(rootReal, relative);
  if (!isInside(rootReal, target)) throw new PathEscapeError(`"${relative}" leaves the workspace.`);
  const parts = path.relative(rootReal, target).split(path.sep).filter(Boolean);
  let current = rootReal;
  for (let i = 0; i < parts.length; i++) {
    const next = path.join(current, parts[i]);
    const info = await lstat(next).catch((err: NodeJS.ErrnoException) => {
      if (err.code === 'ENOENT') return undefined;
      throw err;
    });
    if (!info) return path.join(next, ...parts.slice(i + 1));
    if (!info.isSymbolicLink()) {
      if (!info.isDirectory() && i < parts.length - 1) {
        // Said here: the system's ENOTDIR would name the worker's absolute path.
        throw new LivecontextError('NOT_A_FOLDER', `"${relative}": ${parts.slice(0, i + 1).join('/')} is a file, not a folder.`);
      }
      current = next;
      continue;
    }
    const linkTarget = await realpath(next).catch(() => undefined);
    const shown = parts.slice(0, i + 1).join('/');
    if (!linkTarget) throw new PathEscapeError(`"${relative}" goes through a dangling symlink (${shown}); links whose target does not exist are refused.`);
    if (!isInside(rootReal, linkTarget)) throw new PathEscapeError(`"${relative}" leaves the workspace through a symlink (${shown}).`);
    current = linkTarget;
  }
  return current;
}

export function isInside(root: string, target: string): boolean {
  const rel = path.relative(root, target);
  return rel === '' || (!rel.startsWith(`..${path.sep}`) && rel !== '..' && !path.isAbsolute(rel));
}
