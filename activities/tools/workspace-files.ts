/**
 * Opening workspace files for the file tools, on a path from resolveInWorkspace. O_NOFOLLOW refuses a
 * final symlink swapped in after the check; regular files with more than one hard link are refused, since
 * another link may be outside the workspace (and a write would change that file too). O_NONBLOCK keeps a
 * FIFO from hanging the tool: it is opened, seen not to be a regular file, and refused.
 */
import { constants, type FileHandle, open } from 'node:fs/promises';
import { PathEscapeError } from './workspace-path';

const NO_FOLLOW = constants.O_NOFOLLOW ?? 0;
const NON_BLOCK = constants.O_NONBLOCK ?? 0;

export async function readWorkspaceFile(file: string, shownPath: string): Promise<string> {
  const handle = await openChecked(file, shownPath, constants.O_RDONLY);
  try {
    return await handle.readFile('utf8');
  } finally {
    await handle.close();
  }
}

/** Writes the whole file (created if missing); an existing file is checked before it is truncated. */
export async function writeWorkspaceFile(file: string, shownPath: string, content: string): Promise<void> {
  const handle = await openChecked(file, shownPath, constants.O_WRONLY | constants.O_CREAT);
  try {
    await handle.truncate(0);
    await handle.writeFile(content, 'utf8');
  } finally {
    await handle.close();
  }
}

async function openChecked(file: string, shownPath: string, flags: number): Promise<FileHandle> {
  const handle = await open(file, flags | NO_FOLLOW | NON_BLOCK, 0o644).catch((err: NodeJS.ErrnoException) => {
    if (err.code === 'ELOOP') throw new PathEscapeError(`"${shownPath}" is a symlink; it was refused.`);
    if (err.code === 'EISDIR') throw new Error(`"${shownPath}" is a folder, not a file.`);
    throw err;
  });
  try {
    const info = await handle.stat();
    if (info.isDirectory()) throw new Error(`"${shownPath}" is a folder, not a file.`);
    if (!info.isFile()) throw new Error(`"${shownPath}" is not a regular file; it was refused.`);
    if (info.nlink > 1) {
      throw new PathEscapeError(
        `"${shownPath}" has ${info.nlink} hard links; files with more than one link are refused (another link may be outside the workspace).`,
      );
    }
    return handle;
  } catch (err) {
    await handle.close();
    throw err;
  }
}
