// `npm run test:cluster`: the production-like stack, here, without Docker — PostgreSQL, the Temporal server's
// frontend, history, matching and internal-worker services as separate processes, all from
// deploy/temporal/livecontext.yaml (the file docker-compose.yml mounts) — brought up, checked by the jest
// files test/cluster/*.cluster.ts, and torn down again, also when a check fails or on Ctrl-C.
// Extra arguments go to jest (e.g. a file name). LIVECONTEXT_CLUSTER_KEEP=1 keeps the folder with the logs.
import { spawn } from 'node:child_process';
import { mkdirSync, readdirSync, readFileSync, rmSync } from 'node:fs';
import { createRequire } from 'node:module';
import path from 'node:path';
import { fileURLToPath } from 'node:url';

const require = createRequire(import.meta.url);
const root = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '..');
const started = Date.now();
const seconds = () => Math.round((Date.now() - started) / 1000);
require('./ensure-deps.cjs').ensureDeps(root);
require('./ensure-build.cjs').ensureBuild(root); // the gateways run bin/livecontext.js
const { clusterPrerequisites } = require('./cluster/prerequisites.cjs');
const { clusterUp, clusterDown } = require('./cluster/cluster.cjs');

const found = clusterPrerequisites();
if ('missing' in found) {
  console.error(`test:cluster: cannot run: ${found.missing}.`);
  process.exit(2);
}

let state;
let upFailed = false; // clusterUp stopped what it started and kept the folder with the logs
let jest;
let tearingDown;
const teardown = () =>
  (tearingDown ??= state && !upFailed ? clusterDown(state).catch((err) => console.error(`test:cluster: teardown: ${err.message}`)) : Promise.resolve());
for (const signal of ['SIGINT', 'SIGTERM']) {
  process.once(signal, async () => {
    console.error(`\ntest:cluster: ${signal}, tearing the cluster down…`);
    jest?.kill('SIGTERM');
    await teardown();
    process.exit(130);
  });
}

const results = path.join(root, '.livecontext/test-cluster/results');
rmSync(results, { recursive: true, force: true });
mkdirSync(results, { recursive: true });
let status = 1;
try {
  await clusterUp({ ...found, log: (m) => console.error(m), onState: (s) => (state = s) }).catch((err) => {
    upFailed = true;
    throw err;
  });
  const upAt = seconds();
  status = await new Promise((resolve) => {
    jest = spawn(path.join(root, 'node_modules/.bin/jest'), ['--ci', '--runInBand', '-c', 'test/cluster/jest.config.js', ...process.argv.slice(2)], {
      cwd: root,
      env: { ...process.env, LIVECONTEXT_CLUSTER_STATE: state.stateFile, LIVECONTEXT_CLUSTER_RESULTS: results },
      stdio: 'inherit',
    });
    jest.once('exit', (code, signal) => resolve(code ?? (signal ? 1 : 0)));
  });
  for (const file of readdirSync(results).filter((f) => f.endsWith('.json'))) {
    const figures = JSON.parse(readFileSync(path.join(results, file), 'utf8'));
    console.log(`\n${file.replace(/\.json$/, '')}:\n| figure | value |\n|---|---|`);
    for (const [k, v] of Object.entries(figures)) console.log(`| ${k} | ${typeof v === 'object' ? JSON.stringify(v) : v} |`);
  }
  console.error(`\ntest:cluster: cluster up in ${upAt} s, checks ${seconds() - upAt} s, ${status === 0 ? 'passed' : 'FAILED'}.`);
} catch (err) {
  console.error(`test:cluster: ${err.stack ?? err}`);
  if (state && !upFailed) console.error(`test:cluster: logs in ${state.dir} (kept with LIVECONTEXT_CLUSTER_KEEP=1)`);
} finally {
  await teardown();
}
console.error(`test:cluster: ${seconds()} s in all.`);
process.exit(status);
