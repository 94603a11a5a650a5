/**
 * `livecontext --help`, a command's `--help` and a mistyped command answer without loading any package
 * (Temporal's client, the SDKs, OpenTelemetry): what keeps `node_modules/.bin/livecontext` at about a
 * tenth of a second (bench/cli-start.ts measures it; `npx` adds npm's own start-up on top).
 */
import { execFileSync } from 'node:child_process';
import path from 'node:path';

const CLI = path.resolve(__dirname, '../../cli/cli.ts');
/** Loaded by the test's TypeScript loader itself, not by the CLI. */
const LOADER = new Set(['tsx', 'esbuild', 'get-tsconfig', 'resolve-pkg-maps']);

function packagesLoadedBy(args: string[]): string[] {
  const script = `
    const { main } = require(${JSON.stringify(CLI)});
    const log = console.log; console.log = () => {}; console.error = () => {};
    main(${JSON.stringify(args)}).then(() => {
      const files = Object.keys(require.cache);
      log(JSON.stringify([...new Set(files.map((f) => f.match(/node_modules\\/((?:@[^/]+\\/)?[^/]+)\\//)?.[1]).filter(Boolean))]));
    });`;
  const out = execFileSync(process.execPath, ['--require', require.resolve('tsx/cjs'), '-e', script], { encoding: 'utf8' });
  return (JSON.parse(out.trim().split('\n').pop()!) as string[]).filter((p) => !LOADER.has(p));
}

test('--help, a command --help and an unknown command load no package', () => {
  expect(packagesLoadedBy(['--help'])).toEqual([]);
  expect(packagesLoadedBy(['send', 'A', 'hello', '--help'])).toEqual([]);
  expect(packagesLoadedBy(['no-such-command'])).toEqual([]);
});

test('the check sees a command that loads packages', () => {
  // `list` loads Temporal's client (and fails to connect: the unit project has no server).
  expect(packagesLoadedBy(['list'])).toEqual(expect.arrayContaining(['@temporalio/client']));
});
