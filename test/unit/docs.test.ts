/**
 * The README and docs/ stay true to the tree: every relative link resolves (to a heading, when it names
 * one), every `livecontext <command>` they show is a command of the built CLI whose `--help` lists each
 * option shown with it, and every `npm run <script>` is a script of package.json. The checker is first
 * shown to catch a broken link and an unknown command, so this test can fail.
 */
import { execFileSync } from 'node:child_process';
import { mkdtempSync, readFileSync, readdirSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { type ShownCommand, brokenLinks, headingAnchors, shownCommands } from '../support/markdown-check';

const ROOT = path.resolve(__dirname, '../..');
const BIN = path.join(ROOT, 'bin/livecontext.js');
const PAGES = [
  'README.md',
  ...readdirSync(path.join(ROOT, 'docs'))
    .filter((f) => f.endsWith('.md'))
    .map((f) => `docs/${f}`),
];
const read = (file: string) => readFileSync(path.join(ROOT, file), 'utf8');

/** `livecontext <command> --help` of the built CLI (bin/ compiles dist/ first when it is stale). */
const helps = new Map<string, string>();
function help(command: string): string {
  if (!helps.has(command)) {
    const args = command === '--help' ? ['--help'] : [command, '--help'];
    helps.set(
      command,
      execFileSync(process.execPath, [BIN, ...args], {
        cwd: ROOT,
        encoding: 'utf8',
        stdio: ['ignore', 'pipe', 'pipe'],
        env: { ...process.env, NODE_OPTIONS: '' },
      }),
    );
  }
  return helps.get(command)!;
}

/** What is wrong with a command as shown, or nothing. */
function problems(shown: ShownCommand, scripts: Record<string, string>): string[] {
  if (shown.kind === 'npm') return shown.script in scripts ? [] : [`npm script "${shown.script}" is not in package.json (${shown.text})`];
  let text: string;
  try {
    text = help(shown.command);
  } catch (err) {
    return [`livecontext ${shown.command} --help failed: ${(err as Error).message.split('\n')[0]} (${shown.text})`];
  }
  const usage = shown.command === '--help' ? 'livecontext' : `livecontext ${shown.command}`;
  return [
    ...(text.includes(usage) ? [] : [`livecontext ${shown.command} --help does not give its usage (${shown.text})`]),
    ...shown.options.filter((o) => !new RegExp(`${o}(?![a-z0-9-])`).test(text)).map((o) => `livecontext ${shown.command} has no option ${o} (${shown.text})`),
  ];
}

// The first `bin/livecontext.js` compiles dist/ when the sources are newer: minutes, once.
beforeAll(() => help('--help'), 600_000);

describe('the checker', () => {
  test('anchors follow GitHub: punctuation dropped, code marks gone, repeats numbered', () => {
    expect([...headingAnchors('# A title\n## Streaming (AG-UI)\n## `send --wait` and more\n## Repeat\n## Repeat\n```\n# not a heading\n```')]).toEqual([
      'a-title',
      'streaming-ag-ui',
      'send---wait-and-more',
      'repeat',
      'repeat-1',
    ]);
  });

  test('catches a broken link and an unknown command', () => {
    const dir = mkdtempSync(path.join(tmpdir(), 'docs-check-'));
    writeFileSync(path.join(dir, 'other.md'), '# Other\n\n## Real heading\n');
    const page = path.join(dir, 'page.md');
    writeFileSync(
      page,
      '# Page\n\n[fine](other.md#real-heading), [gone](missing.md), [no anchor](other.md#nowhere), [self](#page), [web](https://example.com/x.md)\n\n' +
        '```sh\nnpx livecontext sned my-agent "hi" --wait   # a typo\nlivecontext state my-agent --jsn\nnpm run no-such-script\n```\n',
    );
    expect(brokenLinks(page)).toEqual([
      'missing.md: no file ' + path.relative(process.cwd(), path.join(dir, 'missing.md')),
      'other.md#nowhere: no heading #nowhere in other.md',
    ]);
    const found = shownCommands(readFileSync(page, 'utf8'));
    expect(found.flatMap((c) => problems(c, { start: '' }))).toEqual([
      expect.stringContaining('livecontext sned --help failed'),
      expect.stringContaining('livecontext state has no option --jsn'),
      expect.stringContaining('npm script "no-such-script" is not in package.json'),
    ]);
  });
});

describe.each(PAGES)('%s', (page) => {
  test('every relative link resolves, to its heading when it names one', () => {
    expect(brokenLinks(path.join(ROOT, page))).toEqual([]);
  });

  test('every command shown exists, with the options shown', () => {
    const scripts = (JSON.parse(read('package.json')) as { scripts: Record<string, string> }).scripts;
    expect(shownCommands(read(page)).flatMap((c) => problems(c, scripts))).toEqual([]);
  });
});

test('the README shows the two commands, and .ci/run runs the test one', () => {
  const commands = shownCommands(read('README.md'));
  expect(commands).toEqual(
    expect.arrayContaining([expect.objectContaining({ kind: 'npm', script: 'start' }), expect.objectContaining({ kind: 'npm', script: 'test' })]),
  );
  expect(read('.ci/run').trim().split('\n').pop()).toBe('npm test');
});

test('every docs page is linked from the README, and has a title and an introduction', () => {
  const readme = read('README.md');
  for (const page of PAGES.filter((p) => p.startsWith('docs/'))) {
    expect(readme).toContain(`](${page})`);
    const [title, , intro] = read(page).split('\n');
    expect(title).toMatch(/^# \S/);
    expect(intro).toMatch(/^[^#\s|-]/); // prose, not a heading, a table or a list
  }
});
