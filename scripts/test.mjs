// `npm test`: installs what is missing, compiles dist/ if stale, finds or builds the Temporal CLI, then type-checks, lints and
// runs every test (unit, integration on a real dev server, replay), then the cluster checks (npm run test:cluster) when
// this machine can run them (PostgreSQL installed, the Temporal server found or built), saying why not otherwise.
import { spawnSync } from 'node:child_process';
import { createRequire } from 'node:module';
import path from 'node:path';
import { fileURLToPath } from 'node:url';

const require = createRequire(import.meta.url);
const root = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '..');
require('./ensure-deps.cjs').ensureDeps(root);
require('./ensure-build.cjs').ensureBuild(root); // the CLI runs compiled code
const cli = require('./temporal-cli.cjs').ensureTemporalCli();
const chromium = require('./ensure-chromium.cjs').ensureChromium(); // the web page's browser test
const s3Server = require('./ensure-s3-server.cjs').ensureS3Server(); // MinIO for the S3 blob store test (built once, ~3 min)
const env = {
  ...process.env,
  ...(cli ? { TEMPORAL_CLI_PATH: cli } : {}),
  ...(chromium ? { LIVECONTEXT_CHROMIUM_PATH: chromium } : {}),
  ...(s3Server ? { LIVECONTEXT_S3_SERVER_PATH: s3Server } : {}),
};

const bin = (name) => path.join(root, 'node_modules', '.bin', name);
// `npm test -- test/unit/x.test.ts`: those tests only, at once (the whole-project type-check and lint take most of a minute).
const named = require('./test-args.cjs').namedTests(process.argv.slice(2));
if (named.length) console.error(`npm test: running ${named.join(', ')} only; type-check and lint skipped (\`npm test\` with no file runs them).`);
const steps = [
  ...(named.length
    ? []
    : [
        ['type-check', bin('tsc'), ['-p', 'tsconfig.json', '--noEmit']],
        ['lint', bin('eslint'), ['.']],
        ['format', bin('prettier'), ['--check', '--log-level', 'warn', '.']],
      ]),
  ['tests', bin('jest'), ['--ci', ...process.argv.slice(2)]],
];
for (const [name, cmd, args] of steps) {
  console.error(`\n== ${name}`);
  const r = spawnSync(cmd, args, { cwd: root, env, stdio: 'inherit' });
  if (r.status !== 0) {
    console.error(`npm test: ${name} failed.`);
    process.exit(r.status ?? 1);
  }
}

const why = process.argv.length > 2 ? 'jest arguments were given' : process.env.LIVECONTEXT_SKIP_CLUSTER === '1' ? 'LIVECONTEXT_SKIP_CLUSTER=1' : null;
const found = why ? { missing: why } : require('./cluster/prerequisites.cjs').clusterPrerequisites();
if ('missing' in found) {
  console.error(`\n== cluster: SKIPPED, ${found.missing}; \`npm run test:cluster\` runs it.`);
} else {
  console.error('\n== cluster');
  const r = spawnSync(process.execPath, [path.join(root, 'scripts/test-cluster.mjs')], { cwd: root, env, stdio: 'inherit' });
  if (r.status !== 0) {
    console.error('npm test: cluster failed.');
    process.exit(r.status ?? 1);
  }
}
