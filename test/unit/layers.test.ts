/**
 * The layer rule in eslint.config.mjs (LAYERS: agent ← workflows ← common ← activities ← worker | client ←
 * gateway ← cli ← bench) fails a wrong-way import and lets the right-way ones through. ESLint lints each
 * probe's text as if it were a file at that path (nothing is written into the source tree), with the
 * project's own config; only type-aware parsing is off (the probes are in no tsconfig) and only the two
 * import rules run. ESLint loads its ESM config with import(), which jest's module sandbox lacks, so it
 * runs in a child Node process.
 */
import { execFileSync } from 'node:child_process';
import path from 'node:path';

const ROOT = path.resolve(__dirname, '../..');

interface Probe {
  path: string;
  code: string;
}
interface Found {
  ruleId: string | null;
  message: string;
}

const LINT = `
const { ESLint } = require('eslint');
const probes = JSON.parse(require('node:fs').readFileSync(0, 'utf8'));
const eslint = new ESLint({
  cwd: process.cwd(),
  overrideConfig: { languageOptions: { parserOptions: { projectService: false } } },
  ruleFilter: ({ ruleId }) => ruleId === 'boundaries/dependencies' || ruleId === 'no-restricted-imports',
});
(async () => {
  const found = [];
  for (const p of probes) {
    const [result] = await eslint.lintText(p.code, { filePath: require('node:path').join(process.cwd(), p.path) });
    found.push(result.messages.map((m) => ({ ruleId: m.ruleId, message: m.message })));
  }
  process.stdout.write(JSON.stringify(found));
})();
`;

function lint(probes: Probe[]): Found[][] {
  const out = execFileSync(process.execPath, ['-e', LINT], { cwd: ROOT, input: JSON.stringify(probes), encoding: 'utf8' });
  return JSON.parse(out) as Found[][];
}

const probes: Record<string, Probe> = {
  agentImportsClient: { path: 'agent/layer-probe.ts', code: "import { refusedUnaccepted } from '../client/retry';\nexport const probe = refusedUnaccepted;\n" },
  gatewayImportsCli: { path: 'gateway/mcp/layer-probe.ts', code: "import { formatTable } from '../../cli/format';\nexport const probe = formatTable;\n" },
  activitiesImportClient: {
    path: 'activities/models/layer-probe.ts',
    code: "import { NoWorkerError } from '../../client/worker-status';\nexport const probe = NoWorkerError;\n",
  },
  workerImportsClient: { path: 'worker/layer-probe.ts', code: "export { NoWorkerError } from '../client/worker-status';\n" },
  workflowsImportActivityValues: {
    path: 'workflows/layer-probe.ts',
    code: "import { createActivities } from '../activities/index';\nexport const probe = createActivities;\n",
  },
  workflowsImportActivityTypes: {
    path: 'workflows/layer-probe.ts',
    code: "import type * as activities from '../activities/index';\nexport type Probe = typeof activities;\n",
  },
  cliImportsGateway: { path: 'cli/layer-probe.ts', code: "import { serveGateway } from '../gateway/serve-gateway';\nexport const probe = serveGateway;\n" },
  clientImportsCommon: {
    path: 'client/layer-probe.ts',
    code: "import { listPollers } from '../common/task-queue-pollers';\nexport const probe = listPollers;\n",
  },
  testImportsBench: { path: 'test/unit/layer-probe.ts', code: "import * as bench from '../../bench/latency';\nexport const probe = bench;\n" },
};
const names = Object.keys(probes);
let found: Record<string, Found[]>;

beforeAll(() => {
  const results = lint(names.map((n) => probes[n]));
  found = Object.fromEntries(names.map((n, i) => [n, results[i]]));
});

const layerErrors = (name: string) => found[name].filter((m) => m.ruleId === 'boundaries/dependencies').map((m) => m.message);

test('a wrong-way import fails, and the message names the layer order and both folders', () => {
  expect(layerErrors('agentImportsClient')).toEqual([expect.stringContaining('agent/ may import only from itself, not from client/')]);
  expect(layerErrors('agentImportsClient')[0]).toContain('Layer order agent ← workflows ← common ← activities ← worker | client ← gateway ← cli ← bench');
  expect(layerErrors('gatewayImportsCli')).toEqual([
    expect.stringContaining('gateway/ may import only from itself and agent, workflows, common, activities, worker, client, not from cli/'),
  ]);
  expect(layerErrors('activitiesImportClient')).toEqual([expect.stringContaining('not from client/')]);
  // Folders sharing a layer do not import each other; a re-export counts as an import.
  expect(layerErrors('workerImportsClient')).toEqual([
    expect.stringContaining('worker/ may import only from itself and agent, workflows, common, activities, not from client/'),
  ]);
});

test('workflows reach activities through their types only', () => {
  expect(layerErrors('workflowsImportActivityValues')).toEqual([
    expect.stringContaining('workflows/ may import only from itself and agent, not from activities/'),
  ]);
  expect(found.workflowsImportActivityTypes).toEqual([]);
});

test('right-way imports pass, and tests may import anything', () => {
  expect(found.cliImportsGateway).toEqual([]);
  expect(found.clientImportsCommon).toEqual([]);
  expect(found.testImportsBench).toEqual([]);
});
