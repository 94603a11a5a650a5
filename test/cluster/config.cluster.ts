/**
 * docker-compose.yml and the running test cluster agree on Temporal's configuration, as the server itself
 * loads it (`render-config`, the same loader `start` uses): rendered with the compose service's environment
 * and with the one the cluster's services run with, the two differ only in where things are.
 */
import { spawnSync } from 'node:child_process';
import { readFileSync } from 'node:fs';
import path from 'node:path';
import { parse } from 'yaml';

// eslint-disable-next-line @typescript-eslint/no-require-imports
const cluster = require('../../scripts/cluster/cluster.cjs');

const ROOT = path.resolve(__dirname, '../..');

/** The server's own rendering of deploy/temporal/livecontext.yaml under `env`. */
function rendered(env: Record<string, string>): Map<string, unknown> {
  const state = cluster.readState();
  const r = spawnSync(state.server, ['--root', cluster.CONFIG_DIR, '--config', '.', '--env', cluster.CONFIG_ENV, 'render-config'], {
    cwd: cluster.CONFIG_DIR,
    env: { PATH: process.env.PATH ?? '', ...env },
    encoding: 'utf8',
  }); // render-config reads --config from the working folder (no --root)
  if (r.status !== 0) throw new Error(`render-config failed: ${r.stdout}${r.stderr}`);
  const out = r.stdout;
  const leaves = new Map<string, unknown>();
  const walk = (v: unknown, p: string) => {
    if (v && typeof v === 'object') for (const [k, x] of Object.entries(v)) walk(x, `${p}.${k}`);
    else leaves.set(p.slice(1), v);
  };
  walk(parse(out), '');
  return leaves;
}

test('the server renders the same config from docker-compose.yml and from the tested cluster, but for addresses, ports and folders', () => {
  const compose = parse(readFileSync(path.join(ROOT, 'docker-compose.yml'), 'utf8'));
  const inCompose = rendered({ ...compose.services.temporal.environment, TEMPORAL_BROADCAST_ADDRESS: '172.18.0.3' });
  const inCluster = rendered(cluster.serverEnv(cluster.readState()));
  expect(inCluster.get('persistence.numHistoryShards')).toBe(4);
  expect(inCluster.get('persistence.datastores.default.sql.pluginName')).toBe('postgres12');
  expect([...inCluster.keys()].sort()).toEqual([...inCompose.keys()].sort());
  const whereThingsAre =
    /(connectAddr|bindOnIP|broadcastAddress|grpcPort|membershipPort|httpPort|rpcAddress|httpAddress|dynamicConfigClient\.filepath|log\.level)$/;
  const differ = [...inCompose.keys()].filter((k) => JSON.stringify(inCompose.get(k)) !== JSON.stringify(inCluster.get(k)));
  expect(differ.length).toBeGreaterThan(0); // the ports do differ: the comparison sees both
  expect(differ.filter((k) => !whereThingsAre.test(k))).toEqual([]);
});
