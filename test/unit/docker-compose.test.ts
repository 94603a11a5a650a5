/** No Docker engine here: the compose file is checked by parsing it and following its wiring. */
import { existsSync, readFileSync } from 'node:fs';
import path from 'node:path';
import { parse } from 'yaml';

const root = path.resolve(__dirname, '../..');
const compose = parse(readFileSync(path.join(root, 'docker-compose.yml'), 'utf8'));
const services = compose.services as Record<string, Record<string, unknown>>;
const env = (name: string) => services[name].environment as Record<string, string>;
const dependsOn = (name: string) => {
  const d = services[name].depends_on;
  return Array.isArray(d) ? d : Object.keys(d as object);
};
const [temporalHost, temporalPort] = env('worker').TEMPORAL_ADDRESS.split(':');

test('Temporal runs on the PostgreSQL service', () => {
  expect(services.temporal.image).toMatch(/^temporalio\/auto-setup:/);
  expect(env('temporal').DB).toBe('postgres12');
  expect(services[env('temporal').POSTGRES_SEEDS]).toBeDefined();
  expect(dependsOn('temporal')).toContain(env('temporal').POSTGRES_SEEDS);
  expect(env('temporal').POSTGRES_USER).toBe(env('postgresql').POSTGRES_USER);
  expect(env('temporal').POSTGRES_PWD).toBe(env('postgresql').POSTGRES_PASSWORD);
});

test('the Web UI and the worker point at the Temporal service and its port', () => {
  expect(services[temporalHost]).toBe(services.temporal);
  expect(services.temporal.ports).toContain(`${temporalPort}:${temporalPort}`);
  expect(env('temporal-ui').TEMPORAL_ADDRESS).toBe(env('worker').TEMPORAL_ADDRESS);
  expect(dependsOn('temporal-ui')).toContain('temporal');
  expect(dependsOn('worker')).toContain('temporal');
});

test('the worker is built from this repository and runs `livecontext worker`; keys come from the host', () => {
  expect(services.worker.build).toBe('.');
  expect(existsSync(path.join(root, 'Dockerfile'))).toBe(true);
  expect(services.worker.command).toEqual(['node', 'bin/livecontext.js', 'worker']);
  expect(env('worker').OPENAI_API_KEY).toBe('${OPENAI_API_KEY:-}');
  expect(readFileSync(path.join(root, "Dockerfile"), "utf8")).toMatch(/npm install/);
});

test('the gateway runs `livecontext serve` beyond loopback, so with a token the host must set', () => {
  expect(services.gateway.build).toBe('.');
  expect(services.gateway.command).toEqual(['node', 'bin/livecontext.js', 'serve', '--host', '0.0.0.0', '--port', '8787']);
  expect(env('gateway').TEMPORAL_ADDRESS).toBe(env('worker').TEMPORAL_ADDRESS);
  expect(env('gateway').LIVECONTEXT_GATEWAY_TOKEN).toMatch(/^\$\{LIVECONTEXT_GATEWAY_TOKEN:\?/); // compose refuses to start without it
  expect(services.gateway.ports).toContain('8787:8787');
});
