/** Built-in file tools, confined to the agent's workspace folder. */
import { mkdir, readFile, readdir, stat, writeFile } from 'node:fs/promises';
import path from 'node:path';
import { z } from 'zod';
import { defineTool } from './define-tool';
import { resolveInWorkspace } from './workspace-path';

export const writeFileTool = defineTool({
  name: 'write_file',
  description: 'Write a UTF-8 text file in the workspace, creating folders as needed. Overwrites an existing file.',
  parameters: z.object({
    path: z.string().min(1).describe('Path relative to the workspace root'),
    content: z.string().describe('The whole new content of the file'),
  }),
  async execute({ path: rel, content }, ctx) {
    const file = await resolveInWorkspace(ctx.workspaceRoot, rel);
    await mkdir(path.dirname(file), { recursive: true });
    await writeFile(file, content, 'utf8');
    return { text: `Wrote ${Buffer.byteLength(content)} bytes to ${rel}.`, metadata: { bytes: Buffer.byteLength(content) } };
  },
});

export const readFileTool = defineTool({
  name: 'read_file',
  description: 'Read a UTF-8 text file from the workspace.',
  parameters: z.object({ path: z.string().min(1).describe('Path relative to the workspace root') }),
  async execute({ path: rel }, ctx) {
    return readFile(await resolveInWorkspace(ctx.workspaceRoot, rel), 'utf8');
  },
});

export const listFilesTool = defineTool({
  name: 'list_files',
  description: 'List the files and folders in a workspace folder (default: the workspace root).',
  parameters: z.object({ path: z.string().default('.').describe('Folder relative to the workspace root') }),
  async execute({ path: rel }, ctx) {
    const dir = await resolveInWorkspace(ctx.workspaceRoot, rel);
    const names = await readdir(dir).catch((err: NodeJS.ErrnoException) => {
      if (err.code === 'ENOENT') return [] as string[];
      throw err;
    });
    const lines = await Promise.all(
      names.sort().map(async (n) => ((await stat(path.join(dir, n))).isDirectory() ? `${n}/` : n)),
    );
    return lines.length ? lines.join('\n') : '(empty)';
  },
});

export const editFileTool = defineTool({
  name: 'edit_file',
  description: 'Replace one exact occurrence of old_text with new_text in a workspace file (fails if it is missing or not unique).',
  parameters: z.object({
    path: z.string().min(1).describe('Path relative to the workspace root'),
    old_text: z.string().min(1).describe('Exact text to replace; must occur exactly once'),
    new_text: z.string().describe('Replacement text'),
  }),
  async execute({ path: rel, old_text, new_text }, ctx) {
    const file = await resolveInWorkspace(ctx.workspaceRoot, rel);
    const content = await readFile(file, 'utf8');
    const first = content.indexOf(old_text);
    if (first < 0) throw new Error(`old_text not found in ${rel}; read the file and copy the text exactly.`);
    if (content.indexOf(old_text, first + 1) >= 0) throw new Error(`old_text occurs more than once in ${rel}; include more context.`);
    await writeFile(file, content.slice(0, first) + new_text + content.slice(first + old_text.length), 'utf8');
    return { text: `Edited ${rel}.`, metadata: { offset: first, length_delta: new_text.length - old_text.length } };
  },
});

export const workspaceTools = [writeFileTool, readFileTool, editFileTool, listFilesTool];
