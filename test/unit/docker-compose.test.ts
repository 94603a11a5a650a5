/**
 * No Docker engine here: the compose file is checked by parsing it and following its wiring, and against
 * the production-like cluster `npm run test:cluster` runs: both take Temporal's configuration, schema and
 * namespace set-up from deploy/temporal/, and differ only in where things are (addresses, ports, folders).
 */
import { existsSync, readFileSync } from 'node:fs';
import path from 'node:path';
import { parse } from 'yaml';
import { SEARCH_ATTRIBUTES } from '../../workflows/messages';

const root = path.resolve(__dirname, '../..');
const compose = parse(readFileSync(path.join(root, 'docker-compose.yml'), 'utf8'));
const services = compose.services as Record<string, Record<string, unknown>>;
const env = (name: string) => services[name].environment as Record<string, string>;
const dependsOn = (name: string) => {
  const d = services[name].depends_on;
  return Array.isArray(d) ? d : Object.keys(d as object);
};
const [temporalHost, temporalPort] = env('worker').TEMPORAL_ADDRESS.split(':');

test('Temporal runs on the PostgreSQL service, its schema and namespace set up first', () => {
  expect(env('temporal').POSTGRES_SEEDS).toBe('postgresql');
  expect(dependsOn('temporal')).toContain('temporal-schema');
  expect(dependsOn('temporal-schema')).toContain('postgresql');
  expect(env('temporal').POSTGRES_USER).toBe(env('postgresql').POSTGRES_USER);
  expect(env('temporal').POSTGRES_PWD).toBe(env('postgresql').POSTGRES_PASSWORD);
  expect(env('temporal-schema')).toMatchObject({
    SQL_HOST: 'postgresql',
    SQL_USER: env('postgresql').POSTGRES_USER,
    SQL_PASSWORD: env('postgresql').POSTGRES_PASSWORD,
  });
  expect(dependsOn('worker')).toContain('temporal-namespace');
  expect(dependsOn('gateway')).toContain('temporal-namespace');
});

test('the Web UI and the worker point at the Temporal service and its port', () => {
  expect(services[temporalHost]).toBe(services.temporal);
  expect(services.temporal.ports).toContain(`${temporalPort}:${temporalPort}`);
  expect(env('temporal-ui').TEMPORAL_ADDRESS).toBe(env('worker').TEMPORAL_ADDRESS);
  expect(dependsOn('temporal-ui')).toContain('temporal');
  expect(dependsOn('worker')).toContain('temporal-namespace'); // which waits for temporal
});

test('the worker is built from this repository and runs `livecontext worker`; keys come from the host', () => {
  expect(services.worker.build).toBe('.');
  expect(existsSync(path.join(root, 'Dockerfile'))).toBe(true);
  expect(services.worker.command).toEqual(['node', 'bin/livecontext.js', 'worker']);
  expect(env('worker').OPENAI_API_KEY).toBe('${OPENAI_API_KEY:-}');
  expect(readFileSync(path.join(root, 'Dockerfile'), 'utf8')).toMatch(/npm install/);
});

test('the gateway runs `livecontext serve` beyond loopback, so with a token the host must set', () => {
  expect(services.gateway.build).toBe('.');
  expect(services.gateway.command).toEqual(['node', 'bin/livecontext.js', 'serve', '--host', '0.0.0.0', '--port', '8787']);
  expect(env('gateway').TEMPORAL_ADDRESS).toBe(env('worker').TEMPORAL_ADDRESS);
  expect(env('gateway').LIVECONTEXT_GATEWAY_TOKEN).toMatch(/^\$\{LIVECONTEXT_GATEWAY_TOKEN:\?/); // compose refuses to start without it
  expect(services.gateway.ports).toContain('8787:8787');
});

// The cluster of `npm run test:cluster`, as scripts/cluster/ starts it.
// eslint-disable-next-line @typescript-eslint/no-require-imports
const cluster = require('../../scripts/cluster/cluster.cjs');
// eslint-disable-next-line @typescript-eslint/no-require-imports
const { SERVER_VERSION } = require('../../scripts/temporal-server.cjs');
const deployDir = path.join(root, 'deploy/temporal');
const template = readFileSync(path.join(deployDir, `${cluster.CONFIG_ENV}.yaml`), 'utf8');
const MOUNT = '/etc/livecontext/temporal';

/**
 * Renders the config as the server does for the only template forms it uses — `{{ env "X" }}` and
 * `{{ env "X" | default "y" }}` (a test below fails on any other) — and parses it.
 */
function render(vars: Record<string, string | undefined>): Record<string, unknown> {
  return parse(template.replace(/\{\{ env "(\w+)"(?: \| default "([^"]*)")? \}\}/g, (_, name: string, fallback?: string) => vars[name] || fallback || ''));
}

/** Leaf paths of a parsed config, with their values. */
function leaves(value: unknown, prefix = ''): Map<string, unknown> {
  const out = new Map<string, unknown>();
  if (value && typeof value === 'object') for (const [k, v] of Object.entries(value)) for (const [p, x] of leaves(v, `${prefix}.${k}`)) out.set(p, x);
  else out.set(prefix.slice(1), value);
  return out;
}

test('compose runs the tested server version with the tested config file, mounted where its command reads it', () => {
  expect(SERVER_VERSION).toBe('v1.29.1');
  expect(services.temporal.image).toBe(`temporalio/server:${SERVER_VERSION.slice(1)}`);
  for (const name of ['temporal-schema', 'temporal-namespace'])
    expect(services[name].image).toMatch(new RegExp(`^temporalio/admin-tools:${SERVER_VERSION.slice(1)}-`));
  for (const name of ['temporal', 'temporal-schema', 'temporal-namespace']) expect(services[name].volumes).toContain(`./deploy/temporal:${MOUNT}:ro`);
  const command = (services.temporal.entrypoint as string[]).join(' ');
  expect(command).toContain(`temporal-server --root ${MOUNT} --config . --env ${cluster.CONFIG_ENV} --allow-no-auth start`);
  expect(env('temporal').TEMPORAL_CONFIG_DIR_ABS).toBe(MOUNT);
  expect(services['temporal-schema'].entrypoint).toEqual(['sh', `${MOUNT}/setup-schema.sh`]);
  expect(services['temporal-namespace'].entrypoint).toEqual(['sh', `${MOUNT}/setup-namespace.sh`]);
  expect(env('temporal-namespace').TEMPORAL_ADDRESS).toBe(env('worker').TEMPORAL_ADDRESS);
});

test('the config template uses only the forms rendered here, and every variable it reads is set by both stacks or defaulted', () => {
  const uses = [...template.matchAll(/\{\{[^}]*\}\}/g)].map((m) => m[0]);
  expect(uses.length).toBeGreaterThan(10);
  for (const use of uses) expect(use).toMatch(/^\{\{ env "\w+"(?: \| default "[^"]*")? \}\}$/);
  const clusterEnv = cluster.serverEnv(fakeClusterState());
  for (const [, name, fallback] of template.matchAll(/\{\{ env "(\w+)"(?: \| default "([^"]*)")? \}\}/g)) {
    expect([name, clusterEnv[name] !== undefined || fallback !== undefined]).toEqual([name, true]);
  }
});

/** A cluster state as scripts/cluster/cluster.cjs writes it, with made-up ports. */
function fakeClusterState() {
  const ports: Record<string, number> = { postgres: 15432, frontendHttp: 17243 };
  ['frontend', 'history', 'matching', 'worker'].forEach((s, i) => ((ports[s] = 17233 + i), (ports[`${s}Membership`] = 26933 + i)));
  return { ports, pg: { user: 'temporal', password: 'temporal' } };
}

test('compose and the tested cluster render the same Temporal config but for addresses, ports and folders', () => {
  const composeEnv: Record<string, string> = { ...env('temporal'), TEMPORAL_BROADCAST_ADDRESS: '172.18.0.3' };
  const inCompose = leaves(render(composeEnv));
  const inCluster = leaves(render(cluster.serverEnv(fakeClusterState())));
  expect([...inCluster.keys()].sort()).toEqual([...inCompose.keys()].sort());
  const differ = [...inCompose.keys()].filter((k) => inCompose.get(k) !== inCluster.get(k)).sort();
  const whereThingsAre =
    /(connectAddr|bindOnIP|broadcastAddress|grpcPort|membershipPort|httpPort|rpcAddress|httpAddress|dynamicConfigClient\.filepath|log\.level)$/;
  expect(differ.filter((k) => !whereThingsAre.test(k))).toEqual([]);
  // What must agree does: the database, its plugin and credentials, the shard count, the four services.
  expect(inCompose.get('persistence.numHistoryShards')).toBe(4);
  expect(inCompose.get('persistence.datastores.default.sql.pluginName')).toBe('postgres12');
  expect(inCompose.get('persistence.datastores.default.sql.connectAddr')).toBe('postgresql:5432');
  expect(inCompose.get('persistence.datastores.default.sql.password')).toBe(env('postgresql').POSTGRES_PASSWORD);
  expect(inCluster.get('persistence.datastores.visibility.sql.databaseName')).toBe('temporal_visibility');
  expect(inCluster.get('services.history.rpc.grpcPort')).toBe(17234);
  expect(
    [...inCompose.keys()]
      .filter((k) => k.endsWith('rpc.grpcPort'))
      .map((k) => k.split('.')[1])
      .sort(),
  ).toEqual(['frontend', 'history', 'matching', 'worker']);
  expect(cluster.SERVICES.slice().sort()).toEqual(['frontend', 'history', 'matching', 'worker']);
});

test('the namespace script registers exactly the search attributes the agent workflow writes', () => {
  const script = readFileSync(path.join(deployDir, 'setup-namespace.sh'), 'utf8');
  const listed = script.match(/^attributes="([^"]+)"/m)?.[1].split(' ');
  expect(listed).toEqual(SEARCH_ATTRIBUTES.map((a) => a.name));
  expect(SEARCH_ATTRIBUTES.every((a) => a.type === 'KEYWORD')).toBe(true);
  expect(readFileSync(path.join(deployDir, 'setup-schema.sh'), 'utf8')).toContain(`SQL_PLUGIN=${inComposePlugin()}`);
});

function inComposePlugin() {
  return leaves(render(env('temporal'))).get('persistence.datastores.default.sql.pluginName');
}
