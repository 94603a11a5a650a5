/**
 * Workspace confinement on real folders: symlinks (dangling or not) never lead a file tool outside the
 * workspace, files with several hard links are refused, and list_files lists links that lead nowhere.
 */
import { execFileSync } from 'node:child_process';
import { existsSync, linkSync, mkdirSync, mkdtempSync, readFileSync, realpathSync, symlinkSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import type { ToolContext } from '../../activities/index';
import { editFileTool, listFilesTool, readFileTool, writeFileTool } from '../../activities/tools/workspace-tools';
import { PathEscapeError, isInside, resolveInWorkspace } from '../../activities/tools/workspace-path';

let workspace: string;
let outside: string;

beforeEach(() => {
  const base = realpathSync(mkdtempSync(path.join(tmpdir(), 'lc-confine-')));
  workspace = path.join(base, 'ws');
  outside = path.join(base, 'outside');
  mkdirSync(workspace);
  mkdirSync(outside);
  writeFileSync(path.join(outside, 'secret.txt'), 'top secret');
});

const ctx = (): ToolContext => ({
  agentId: 'a',
  toolCallId: 'c',
  idempotencyKey: 'a/c',
  workspaceRoot: workspace,
  signal: new AbortController().signal,
  heartbeat: () => {},
});
const at = (...parts: string[]) => path.join(workspace, ...parts);

describe('resolveInWorkspace', () => {
  test('plain paths, existing or not, resolve inside', async () => {
    mkdirSync(at('src'));
    await expect(resolveInWorkspace(workspace, 'src/a.ts')).resolves.toBe(at('src', 'a.ts'));
    await expect(resolveInWorkspace(workspace, 'new/deep/b.ts')).resolves.toBe(at('new', 'deep', 'b.ts'));
    await expect(resolveInWorkspace(workspace, '.')).resolves.toBe(workspace);
    await expect(resolveInWorkspace(workspace, '..names-with-dots')).resolves.toBe(at('..names-with-dots'));
  });

  test('.. and absolute paths are refused', async () => {
    await expect(resolveInWorkspace(workspace, '../outside/secret.txt')).rejects.toThrow(/leaves the workspace/);
    await expect(resolveInWorkspace(workspace, path.join(outside, 'secret.txt'))).rejects.toThrow(/is absolute/);
  });

  test('a symlink to a folder or file outside is refused, as the last component or on the way', async () => {
    symlinkSync(outside, at('dir-link'));
    symlinkSync(path.join(outside, 'secret.txt'), at('file-link'));
    await expect(resolveInWorkspace(workspace, 'dir-link/secret.txt')).rejects.toThrow(/through a symlink \(dir-link\)/);
    await expect(resolveInWorkspace(workspace, 'dir-link/new/x.txt')).rejects.toThrow(PathEscapeError);
    await expect(resolveInWorkspace(workspace, 'file-link')).rejects.toThrow(/through a symlink \(file-link\)/);
  });

  test('a dangling symlink is refused, wherever it points', async () => {
    symlinkSync(path.join(outside, 'not-yet.txt'), at('dangling-out'));
    symlinkSync(at('not-yet-inside.txt'), at('dangling-in'));
    symlinkSync(path.join(outside, 'no-dir'), at('dangling-dir'));
    await expect(resolveInWorkspace(workspace, 'dangling-out')).rejects.toThrow(/dangling symlink \(dangling-out\)/);
    await expect(resolveInWorkspace(workspace, 'dangling-in')).rejects.toThrow(/dangling symlink/);
    await expect(resolveInWorkspace(workspace, 'dangling-dir/x.txt')).rejects.toThrow(/dangling symlink \(dangling-dir\)/);
  });

  test('a symlink that stays inside is followed to its real path', async () => {
    mkdirSync(at('real'));
    writeFileSync(at('real', 'f.txt'), 'x');
    symlinkSync(at('real'), at('alias'));
    symlinkSync('real/f.txt', at('relative-alias'));
    await expect(resolveInWorkspace(workspace, 'alias/f.txt')).resolves.toBe(at('real', 'f.txt'));
    await expect(resolveInWorkspace(workspace, 'relative-alias')).resolves.toBe(at('real', 'f.txt'));
  });
});

describe('resolveInWorkspace, the cases around the edges', () => {
  test('isInside compares whole path components, not string prefixes', () => {
    expect(isInside('/w/ws', '/w/ws')).toBe(true);
    expect(isInside('/w/ws', '/w/ws/a/b')).toBe(true);
    expect(isInside('/w/ws', '/w/ws/..hidden')).toBe(true);
    expect(isInside('/w/ws', '/w/ws-other/a')).toBe(false);
    expect(isInside('/w/ws', '/w/wsx')).toBe(false);
    expect(isInside('/w/ws', '/w')).toBe(false);
    expect(isInside('/w/ws', '/elsewhere')).toBe(false);
  });

  test('.. inside a path is resolved first: where it ends is judged, not the way there', async () => {
    await expect(resolveInWorkspace(workspace, 'a/../../outside/secret.txt')).rejects.toThrow(/leaves the workspace/);
    await expect(resolveInWorkspace(workspace, 'a/b/../../../ws/x.txt')).resolves.toBe(at('x.txt')); // out and back in
    await expect(resolveInWorkspace(workspace, 'a/../b.txt')).resolves.toBe(at('b.txt'));
    await expect(resolveInWorkspace(workspace, '')).resolves.toBe(workspace);
  });

  test("a path through a file is a clear error that does not name the worker's folders", async () => {
    writeFileSync(at('plain.txt'), 'x');
    const err = await resolveInWorkspace(workspace, 'plain.txt/inner.txt').catch((e: Error & { code?: string }) => e);
    expect(err).toMatchObject({ code: 'NOT_A_FOLDER', message: '"plain.txt/inner.txt": plain.txt is a file, not a folder.' });
    await expect(resolveInWorkspace(workspace, 'plain.txt')).resolves.toBe(at('plain.txt'));
  });

  test('a sibling folder whose name starts like the workspace is outside', async () => {
    mkdirSync(`${workspace}-twin`);
    await expect(resolveInWorkspace(workspace, '../ws-twin/x.txt')).rejects.toThrow(/leaves the workspace/);
    symlinkSync(`${workspace}-twin`, at('twin'));
    await expect(resolveInWorkspace(workspace, 'twin/x.txt')).rejects.toThrow(/through a symlink \(twin\)/);
  });

  test('a workspace given through a symlink resolves to real paths inside it', async () => {
    const viaLink = path.join(path.dirname(workspace), 'ws-link');
    symlinkSync(workspace, viaLink);
    await expect(resolveInWorkspace(viaLink, 'src/a.ts')).resolves.toBe(at('src', 'a.ts'));
    await expect(resolveInWorkspace(viaLink, '../outside/secret.txt')).rejects.toThrow(/leaves the workspace/);
  });

  test('relative links and chains of links are judged by where they finally lead', async () => {
    symlinkSync('../outside', at('rel-out'));
    await expect(resolveInWorkspace(workspace, 'rel-out/secret.txt')).rejects.toThrow(/through a symlink \(rel-out\)/);
    // inside -> inside -> outside: the first hop looks harmless
    symlinkSync(path.join(outside, 'secret.txt'), at('hop2'));
    symlinkSync('hop2', at('hop1'));
    await expect(resolveInWorkspace(workspace, 'hop1')).rejects.toThrow(/through a symlink \(hop1\)/);
    // inside -> inside -> inside, and a link to the workspace itself
    mkdirSync(at('real'));
    symlinkSync('real', at('step2'));
    symlinkSync('step2', at('step1'));
    symlinkSync('.', at('self'));
    await expect(resolveInWorkspace(workspace, 'step1/f.txt')).resolves.toBe(at('real', 'f.txt'));
    await expect(resolveInWorkspace(workspace, 'self/self/real')).resolves.toBe(at('real'));
  });

  test('a symlink loop is refused like a dangling link, without hanging', async () => {
    symlinkSync('loop-b', at('loop-a'));
    symlinkSync('loop-a', at('loop-b'));
    await expect(resolveInWorkspace(workspace, 'loop-a/x.txt')).rejects.toThrow(PathEscapeError);
    await expect(resolveInWorkspace(workspace, 'loop-a/x.txt')).rejects.toThrow(/dangling symlink \(loop-a\)/);
  });
});

describe('file tools', () => {
  test('write_file through a dangling symlink creates nothing outside', async () => {
    const target = path.join(outside, 'planted.txt');
    symlinkSync(target, at('trap'));
    await expect(writeFileTool.execute({ path: 'trap', content: 'x' }, ctx())).rejects.toThrow(/dangling symlink/);
    await expect(writeFileTool.execute({ path: 'trap2/../trap', content: 'x' }, ctx())).rejects.toThrow(/dangling symlink/);
    expect(existsSync(target)).toBe(false);
  });

  test('a file hard-linked from outside can be neither read, edited nor overwritten', async () => {
    linkSync(path.join(outside, 'secret.txt'), at('hard.txt'));
    await expect(readFileTool.execute({ path: 'hard.txt' }, ctx())).rejects.toThrow(/2 hard links; files with more than one link are refused/);
    await expect(editFileTool.execute({ path: 'hard.txt', old_text: 'top', new_text: 'no' }, ctx())).rejects.toThrow(/hard links/);
    await expect(writeFileTool.execute({ path: 'hard.txt', content: 'overwritten' }, ctx())).rejects.toThrow(/hard links/);
    expect(readFileSync(path.join(outside, 'secret.txt'), 'utf8')).toBe('top secret');
  });

  test('ordinary files still work, including through a link inside', async () => {
    await writeFileTool.execute({ path: 'notes/a.txt', content: 'hello' }, ctx());
    await editFileTool.execute({ path: 'notes/a.txt', old_text: 'hello', new_text: 'hello world' }, ctx());
    symlinkSync(at('notes'), at('notes-alias'));
    await expect(readFileTool.execute({ path: 'notes-alias/a.txt' }, ctx())).resolves.toBe('hello world');
    await writeFileTool.execute({ path: 'notes/a.txt', content: 'short' }, ctx());
    await expect(readFileTool.execute({ path: 'notes/a.txt' }, ctx())).resolves.toBe('short'); // truncated, not overlaid
  });

  test('read_file refuses a folder and a FIFO instead of hanging', async () => {
    mkdirSync(at('folder'));
    await expect(readFileTool.execute({ path: 'folder' }, ctx())).rejects.toThrow(/is a folder/);
    await expect(writeFileTool.execute({ path: 'folder', content: 'x' }, ctx())).rejects.toThrow(/is a folder/);
    execFileSync('mkfifo', [at('pipe')]);
    await expect(readFileTool.execute({ path: 'pipe' }, ctx())).rejects.toThrow(/not a regular file/);
  });

  test('list_files lists dangling links and links leading outside instead of failing', async () => {
    mkdirSync(at('sub'));
    writeFileSync(at('file.txt'), 'x');
    symlinkSync(path.join(outside, 'gone'), at('dangling'));
    symlinkSync(outside, at('out'));
    symlinkSync(at('sub'), at('sub-alias'));
    await expect(listFilesTool.execute({ path: '.' }, ctx())).resolves.toBe(
      ['dangling -> (dangling link)', 'file.txt', 'out -> (link outside the workspace)', 'sub/', 'sub-alias/'].join('\n'),
    );
    await expect(listFilesTool.execute({ path: 'out' }, ctx())).rejects.toThrow(/through a symlink/);
  });
});
