/**
 * Metrics pushed over OTLP/HTTP by Temporal's runtime, configured only by OTEL_* variables, to a
 * receiver in the test that decodes the protobuf requests as a collector would: a worker process that
 * ran a tool turn sends Temporal's worker metrics and livecontext's own, with the turn counted once.
 */
import { mkdtempSync } from 'node:fs';
import { type Server, createServer } from 'node:http';
import type { AddressInfo } from 'node:net';
import { tmpdir } from 'node:os';
import path from 'node:path';
// The OTLP protobuf messages, as generated for OpenTelemetry's own exporters.
// eslint-disable-next-line @typescript-eslint/no-require-imports
const root = require('@opentelemetry/otlp-transformer/build/src/generated/root') as {
  opentelemetry: {
    proto: { collector: { metrics: { v1: { ExportMetricsServiceRequest: { decode(b: Uint8Array): unknown; toObject(m: unknown, o: object): unknown } } } } };
  };
};
import { AgentClient } from '../../client/agent-client';
import { connectAgents } from '../../client/connect';
import { type ChildWorker, startChildWorker } from '../support/child-worker';
import { eventually, testAddress, uniqueId } from '../support/temporal';

jest.setTimeout(120_000);

interface Point {
  name: string;
  value: number;
  attributes: Record<string, string>;
}
/** The latest value of each (metric, attributes) pair received: cumulative sums, gauges. */
const latest = new Map<string, Point>();
const paths = new Set<string>();
let receiver: Server;
let worker: ChildWorker | undefined;

type Attr = { key: string; value: { stringValue?: string; intValue?: number | string } };
const attrs = (list: Attr[] = []) => Object.fromEntries(list.map((a) => [a.key, String(a.value.stringValue ?? a.value.intValue ?? '')]));

beforeAll(async () => {
  const Request = root.opentelemetry.proto.collector.metrics.v1.ExportMetricsServiceRequest;
  receiver = createServer((req, res) => {
    const chunks: Buffer[] = [];
    req.on('data', (d: Buffer) => chunks.push(d));
    req.on('end', () => {
      paths.add(`${req.method} ${req.url} ${req.headers['content-type']}`);
      const request = Request.toObject(Request.decode(Buffer.concat(chunks)), { longs: Number, defaults: false }) as {
        resourceMetrics?: Array<{
          scopeMetrics?: Array<{ metrics?: Array<{ name: string; sum?: { dataPoints?: unknown[] }; gauge?: { dataPoints?: unknown[] } }> }>;
        }>;
      };
      for (const rm of request.resourceMetrics ?? []) {
        for (const sm of rm.scopeMetrics ?? []) {
          for (const m of sm.metrics ?? []) {
            const points = (m.sum?.dataPoints ?? m.gauge?.dataPoints ?? []) as Array<{ asInt?: number; asDouble?: number; attributes?: Attr[] }>;
            for (const p of points) {
              const attributes = attrs(p.attributes);
              latest.set(`${m.name} ${JSON.stringify(attributes)}`, { name: m.name, value: Number(p.asInt ?? p.asDouble ?? 0), attributes });
            }
          }
        }
      }
      res.writeHead(200, { 'content-type': 'application/x-protobuf' }).end();
    });
  });
  await new Promise<void>((resolve) => receiver.listen(0, '127.0.0.1', resolve));
});
afterAll(async () => {
  await worker?.kill();
  await new Promise((resolve) => receiver?.close(resolve));
});

const sum = (name: string, where: Record<string, string>) =>
  [...latest.values()].filter((p) => p.name === name && Object.entries(where).every(([k, v]) => p.attributes[k] === v)).reduce((s, p) => s + p.value, 0);

test("a worker configured by OTEL_* pushes Temporal's and livecontext's metrics over OTLP/HTTP", async () => {
  const taskQueue = uniqueId('metrics-otlp');
  const port = (receiver.address() as AddressInfo).port;
  worker = await startChildWorker({
    taskQueue,
    workspaceRoot: mkdtempSync(path.join(tmpdir(), 'lc-motlp-ws-')),
    controlDir: mkdtempSync(path.join(tmpdir(), 'lc-motlp-ctl-')),
    extraEnv: {
      OTEL_EXPORTER_OTLP_METRICS_ENDPOINT: `http://127.0.0.1:${port}/v1/metrics`,
      OTEL_METRIC_EXPORT_INTERVAL: '300',
      LIVECONTEXT_METRICS_AGENT_STATES_SECONDS: '0',
    },
  });
  process.env.TEMPORAL_ADDRESS = testAddress();
  const { client, connection } = await connectAgents();
  try {
    const agents = new AgentClient(client, taskQueue);
    const agentId = uniqueId('otlp-metered');
    await agents.start(agentId, { model: 'scripted:loop' });
    expect(await agents.ask(agentId, 'please record')).toMatchObject({ status: 'answered' });
    await eventually(() => sum('livecontext_turns', { taskQueue }) === 1, 30_000, 'the turn counted over OTLP');
    expect([...paths]).toEqual(['POST /v1/metrics application/x-protobuf']);
    expect(sum('livecontext_model_calls', { taskQueue, model: 'scripted:loop', outcome: 'ok' })).toBe(2);
    expect(sum('livecontext_model_tokens', { taskQueue, model: 'scripted:loop', kind: 'output' })).toBe(2);
    expect(sum('livecontext_tool_calls', { taskQueue, tool: 'record', status: 'Success' })).toBe(2);
    // Temporal's own, through the same exporter.
    expect([...latest.values()].some((p) => p.name.startsWith('temporal_workflow_task') && p.attributes.task_queue === taskQueue)).toBe(true);
    // A few more exports later, the cumulative count is still one: nothing is counted twice.
    await new Promise((r) => setTimeout(r, 1000));
    expect(sum('livecontext_turns', { taskQueue })).toBe(1);
  } finally {
    await connection.close();
  }
});
