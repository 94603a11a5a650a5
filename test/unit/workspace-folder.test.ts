/** Agent ids map to workspace folders one-to-one; safe ids keep today's folder; long ids still work. */
import { mkdirSync, mkdtempSync, writeFileSync, readdirSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { safeFolderName } from '../../activities/execute-tool';
import { MAX_KEPT_ID_LENGTH } from '../../activities/tools/workspace-folder';

test('ids that are already safe folder names keep them', () => {
  for (const id of ['agent-1', 'coll_a', 'Report.v2', 'a'.repeat(MAX_KEPT_ID_LENGTH), '...', '-x']) expect(safeFolderName(id)).toBe(id);
});

test('ids of the same shape get distinct folders, none of which a safe id could name', () => {
  const ids = [
    'coll/a',
    'coll a',
    'coll_a',
    'coll:a',
    'coll\\a',
    'coll/é',
    'coll/è',
    'coll/e\u0301',
    'coll/\u00e9\u0301',
    '.',
    '..',
    '',
    'a'.repeat(MAX_KEPT_ID_LENGTH + 1),
  ];
  const folders = ids.map(safeFolderName);
  expect(new Set(folders).size).toBe(ids.length);
  for (const [i, folder] of folders.entries()) {
    if (ids[i] === 'coll_a') continue;
    expect(folder).toMatch(/^[A-Za-z0-9._-]*@[0-9a-f]{32}$/);
    expect(folder).not.toMatch(/^\./); // no hidden folders, never "." or ".."
  }
  expect(safeFolderName('coll/a')).toMatch(/^coll_a@/); // readable prefix
  expect(safeFolderName('coll/a')).toBe(safeFolderName('coll/a')); // stable
});

test('a very long id gets a short folder that the file system accepts', () => {
  const root = mkdtempSync(path.join(tmpdir(), 'lc-folders-'));
  const long = (tail: string) => `${'x'.repeat(290)}/${tail}`;
  for (const id of [long('1'), long('2'), 'é'.repeat(300)]) {
    const folder = safeFolderName(id);
    expect(folder.length).toBeLessThanOrEqual(80);
    mkdirSync(path.join(root, folder));
    writeFileSync(path.join(root, folder, 'f.txt'), id);
  }
  expect(readdirSync(root)).toHaveLength(3);
});
