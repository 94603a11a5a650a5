/** Built-in file tools, confined to the agent's workspace folder. */
import type { Dirent } from 'node:fs';
import { lstat, mkdir, readdir, realpath, stat, unlink } from 'node:fs/promises';
import path from 'node:path';
import { z } from 'zod';
import { defineTool } from './define-tool';
import { NO_TOOL_RETRY, READ_ONLY_TOOL_RETRY } from './tool-retry';
import { readWorkspaceFile, writeWorkspaceFile } from './workspace-files';
import { isInside, resolveInWorkspace } from './workspace-path';

export const writeFileTool = defineTool({
  name: 'write_file',
  retry: NO_TOOL_RETRY,
  description: 'Write a UTF-8 text file in the workspace, creating folders as needed. Overwrites an existing file.',
  parameters: z.object({
    path: z.string().min(1).describe('Path relative to the workspace root'),
    content: z.string().describe('The whole new content of the file'),
  }),
  async execute({ path: rel, content }, ctx) {
    const file = await resolveInWorkspace(ctx.workspaceRoot, rel);
    await mkdir(path.dirname(file), { recursive: true });
    await writeWorkspaceFile(file, rel, content);
    return { text: `Wrote ${Buffer.byteLength(content)} bytes to ${rel}.`, metadata: { bytes: Buffer.byteLength(content) } };
  },
});

export const readFileTool = defineTool({
  name: 'read_file',
  retry: READ_ONLY_TOOL_RETRY,
  description: 'Read a UTF-8 text file from the workspace.',
  parameters: z.object({ path: z.string().min(1).describe('Path relative to the workspace root') }),
  idempotent: true, // reads only: running it again after an unknown outcome does no harm
  async execute({ path: rel }, ctx) {
    return readWorkspaceFile(await resolveInWorkspace(ctx.workspaceRoot, rel), rel);
  },
});

export const listFilesTool = defineTool({
  name: 'list_files',
  retry: READ_ONLY_TOOL_RETRY,
  description: 'List the files and folders in a workspace folder (default: the workspace root).',
  parameters: z.object({ path: z.string().default('.').describe('Folder relative to the workspace root') }),
  idempotent: true, // reads only: running it again after an unknown outcome does no harm
  async execute({ path: rel }, ctx) {
    const dir = await resolveInWorkspace(ctx.workspaceRoot, rel);
    const entries = await readdir(dir, { withFileTypes: true }).catch((err: NodeJS.ErrnoException) => {
      if (err.code === 'ENOENT') return [] as Dirent[];
      throw err;
    });
    const root = await realpath(ctx.workspaceRoot);
    const lines = await Promise.all(entries.sort((a, b) => (a.name < b.name ? -1 : 1)).map((e) => describeEntry(root, dir, e)));
    return lines.length ? lines.join('\n') : '(empty)';
  },
});

export const editFileTool = defineTool({
  name: 'edit_file',
  retry: NO_TOOL_RETRY,
  description: 'Replace one exact occurrence of old_text with new_text in a workspace file (fails if it is missing or not unique).',
  parameters: z.object({
    path: z.string().min(1).describe('Path relative to the workspace root'),
    old_text: z.string().min(1).describe('Exact text to replace; must occur exactly once'),
    new_text: z.string().describe('Replacement text'),
  }),
  async execute({ path: rel, old_text, new_text }, ctx) {
    const file = await resolveInWorkspace(ctx.workspaceRoot, rel);
    const content = await readWorkspaceFile(file, rel);
    const first = content.indexOf(old_text);
    if (first < 0) throw new Error(`old_text not found in ${rel}; read the file and copy the text exactly.`);
    if (content.indexOf(old_text, first + 1) >= 0) throw new Error(`old_text occurs more than once in ${rel}; include more context.`);
    await writeWorkspaceFile(file, rel, content.slice(0, first) + new_text + content.slice(first + old_text.length));
    return { text: `Edited ${rel}.`, metadata: { offset: first, length_delta: new_text.length - old_text.length } };
  },
});

/** `name/` for a folder (or a link to one inside the workspace); links that lead nowhere usable are listed, marked. */
async function describeEntry(root: string, dir: string, entry: Dirent): Promise<string> {
  if (entry.isDirectory()) return `${entry.name}/`;
  if (!entry.isSymbolicLink()) return entry.name;
  const target = await realpath(path.join(dir, entry.name)).catch(() => undefined);
  if (!target) return `${entry.name} -> (dangling link)`;
  if (!isInside(root, target)) return `${entry.name} -> (link outside the workspace)`;
  const isFolder = await stat(target).then(
    (s) => s.isDirectory(),
    () => false,
  );
  return isFolder ? `${entry.name}/` : entry.name;
}

export const deleteFileTool = defineTool({
  name: 'delete_file',
  retry: NO_TOOL_RETRY,
  description: 'Delete a file in the workspace. A person approves each deletion first.',
  parameters: z.object({ path: z.string().min(1).describe('Path relative to the workspace root') }),
  needsApproval: ({ path: rel }) => `deleting ${rel} cannot be undone`,
  async execute({ path: rel }, ctx) {
    const file = await resolveInWorkspace(ctx.workspaceRoot, rel);
    const info = await lstat(file).catch((err: NodeJS.ErrnoException) => {
      if (err.code === 'ENOENT') throw new Error(`${rel} does not exist.`);
      throw err;
    });
    if (!info.isFile()) throw new Error(`${rel} is not a file; only files are deleted.`);
    await unlink(file);
    return `Deleted ${rel}.`;
  },
});

export const workspaceTools = [writeFileTool, readFileTool, editFileTool, listFilesTool, deleteFileTool];
