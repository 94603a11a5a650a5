/**
 * Tracing configured only by OTEL_* variables, exported by the official OTLP/HTTP exporter to a
 * receiver in the test (it reads OTLP JSON, as a collector would), with the worker in a child process
 * that is SIGKILLed between two turns: each turn is one trace (client → update → workflow → model call →
 * tools → model call, whose first attempt fails and Temporal retries); the next worker replays the
 * history and no span arrives twice; the workflow's span, begun on the first worker, ends on the second
 * with the same id.
 */
import { mkdtempSync, writeFileSync } from 'node:fs';
import { type Server, createServer } from 'node:http';
import type { AddressInfo } from 'node:net';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { trace } from '@opentelemetry/api';
import { bundleWorkflowCode } from '@temporalio/worker';
import { TRACING_WORKFLOW_MODULE } from '../../activities/telemetry/worker-tracing';
import { AgentClient } from '../../client/agent-client';
import { connectAgents } from '../../client/connect';
import { activeTracing } from '../../common/telemetry';
import { WORKFLOWS_PATH } from '../../worker/create-worker';
import { type ChildWorker, startChildWorker } from '../support/child-worker';
import { eventually, testAddress, uniqueId } from '../support/temporal';

jest.setTimeout(180_000);

interface ReceivedSpan {
  service: string;
  traceId: string;
  spanId: string;
  parentSpanId?: string;
  name: string;
  attributes: Record<string, unknown>;
  /** OTLP status code: 0 unset, 1 ok, 2 error. */
  status: number;
}
const received: ReceivedSpan[] = [];
let receiver: Server;
let endpoint: string;
let bundlePath: string;
const workers: ChildWorker[] = [];

type OtlpValue = { stringValue?: string; intValue?: number | string; boolValue?: boolean; doubleValue?: number; arrayValue?: { values: OtlpValue[] } };
const valueOf = (v: OtlpValue): unknown =>
  v.arrayValue ? v.arrayValue.values.map(valueOf) : (v.stringValue ?? (v.intValue !== undefined ? Number(v.intValue) : (v.boolValue ?? v.doubleValue)));
const attrs = (list: Array<{ key: string; value: OtlpValue }> = []) => Object.fromEntries(list.map((a) => [a.key, valueOf(a.value)]));

beforeAll(async () => {
  receiver = createServer((req, res) => {
    let body = '';
    req.on('data', (d) => (body += d));
    req.on('end', () => {
      const request = JSON.parse(body) as {
        resourceSpans: Array<{
          resource: { attributes: never };
          scopeSpans: Array<{
            spans: Array<{ traceId: string; spanId: string; parentSpanId?: string; name: string; attributes: never; status?: { code?: number } }>;
          }>;
        }>;
      };
      for (const rs of request.resourceSpans) {
        const service = String(attrs(rs.resource.attributes)['service.name']);
        for (const ss of rs.scopeSpans)
          for (const s of ss.spans)
            received.push({
              service,
              traceId: s.traceId,
              spanId: s.spanId,
              parentSpanId: s.parentSpanId || undefined,
              name: s.name,
              attributes: attrs(s.attributes),
              status: s.status?.code ?? 0,
            });
      }
      res.writeHead(200, { 'content-type': 'application/json' }).end('{}');
    });
  });
  await new Promise<void>((resolve) => receiver.listen(0, '127.0.0.1', resolve));
  endpoint = `http://127.0.0.1:${(receiver.address() as AddressInfo).port}/v1/traces`;
  const quiet = { info() {}, warn() {}, error: console.error, debug() {}, trace() {}, log() {} };
  const bundle = await bundleWorkflowCode({ workflowsPath: WORKFLOWS_PATH, workflowInterceptorModules: [TRACING_WORKFLOW_MODULE], logger: quiet as never });
  bundlePath = path.join(mkdtempSync(path.join(tmpdir(), 'lc-otlp-')), 'traced-bundle.js');
  writeFileSync(bundlePath, bundle.code);
});
afterAll(async () => {
  for (const w of workers) await w.kill();
  await activeTracing()?.shutdown();
  await new Promise((resolve) => receiver?.close(resolve));
});

test('each turn one trace (client → update → workflow → model → tools → retried model), across a SIGKILLed worker and a replaying one; no span twice', async () => {
  const otel = { OTEL_EXPORTER_OTLP_TRACES_ENDPOINT: endpoint, OTEL_EXPORTER_OTLP_PROTOCOL: 'http/json', OTEL_BSP_SCHEDULE_DELAY: '100' };
  const taskQueue = uniqueId('otlp');
  const agentId = uniqueId('otlp-agent');
  const controlDir = mkdtempSync(path.join(tmpdir(), 'lc-otlp-ctl-'));
  const workerEnv = {
    taskQueue,
    workspaceRoot: mkdtempSync(path.join(tmpdir(), 'lc-otlp-ws-')),
    controlDir,
    extraEnv: { ...otel, OTEL_SERVICE_NAME: 'lc-worker', LIVECONTEXT_TEST_BUNDLE: bundlePath },
  };
  Object.assign(process.env, otel, { OTEL_SERVICE_NAME: 'lc-client', TEMPORAL_ADDRESS: testAddress() });
  const conn = await connectAgents(); // tracing from the environment alone
  try {
    expect(activeTracing()).toBeDefined();
    const agents = new AgentClient(conn.client, taskQueue);
    const turn = (name: string, fn: () => Promise<void>) =>
      trace.getTracer('test').startActiveSpan(name, async (span) => {
        try {
          await fn();
          return span.spanContext().traceId;
        } finally {
          span.end();
        }
      });

    workers.push(await startChildWorker(workerEnv));
    const first = await turn('turn 1', async () => {
      await agents.start(agentId, { model: 'scripted:flaky' });
      expect(await agents.ask(agentId, 'please record')).toMatchObject({ status: 'answered' });
    });
    // The first worker's spans are out (exported every 100 ms) before it dies like a crashed machine: what
    // a worker ended but had not exported when killed is lost (a replay never exports it), never doubled.
    const out = (name: string) => received.filter((s) => s.traceId === first && s.name === name).length;
    await eventually(
      () => out('chat flaky') === 3 && out('StartActivity:callModel') === 2 && out('RunActivity:callModel') === 3,
      30_000,
      "the first turn's spans",
    );
    await workers[0]!.kill('SIGKILL');

    workers.push(await startChildWorker(workerEnv)); // no cache: replays the whole history first
    const second = await turn('turn 2', async () => {
      expect(await agents.ask(agentId, 'say hi')).toMatchObject({ status: 'answered' });
      await agents.stop(agentId, 'test over');
      await agents.handle(agentId).result();
    });
    await activeTracing()!.flush();
    await eventually(() => received.some((s) => s.name === 'RunWorkflow:agentWorkflow'), 30_000, 'the workflow span');

    const ids = received.map((s) => s.spanId);
    expect(new Set(ids).size).toBe(ids.length); // nothing exported twice, by either worker
    const named = (traceId: string, name: string) => received.filter((s) => s.traceId === traceId && s.name === name);
    // Turn 1: client → update → workflow → model call → tools → model call, in one trace.
    expect(named(first, 'StartWorkflowUpdate:ask')).toHaveLength(1);
    expect(named(first, 'HandleUpdate:ask')).toHaveLength(1);
    expect(named(first, 'StartActivity:callModel')).toHaveLength(2);
    expect(named(first, 'execute_tool record')).toHaveLength(2);
    // Two model calls, the second tried twice: three attempts, three chat spans.
    expect(named(first, 'RunActivity:callModel')).toHaveLength(3);
    const chats = named(first, 'chat flaky');
    expect(chats).toHaveLength(3);
    expect(
      chats.every((s) => s.service === 'lc-worker' && s.attributes['gen_ai.operation.name'] === 'chat' && s.attributes['gen_ai.request.model'] === 'flaky'),
    ).toBe(true);
    const byId = new Map(received.map((s) => [s.spanId, s]));
    const failed = chats.filter((s) => s.status === 2 /* ERROR */);
    expect(failed).toHaveLength(1);
    expect(failed[0]!.attributes).toMatchObject({ 'error.type': 'ModelError.Connection', 'livecontext.attempt': 1 });
    const retried = chats.find((s) => s.attributes['livecontext.attempt'] === 2)!;
    expect(retried.attributes).toMatchObject({ 'gen_ai.usage.input_tokens': 10, 'gen_ai.usage.output_tokens': 2, 'gen_ai.response.finish_reasons': ['stop'] });
    // The failed and the retried attempt are two runs of one scheduled call.
    const scheduleOf = (s: ReceivedSpan) => byId.get(byId.get(s.parentSpanId!)!.parentSpanId!)!;
    expect(scheduleOf(failed[0]!).name).toBe('StartActivity:callModel');
    expect(scheduleOf(failed[0]!).spanId).toBe(scheduleOf(retried).spanId);
    // The tools ran between the first model call and the retried one, in the same trace.
    const firstChat = chats.find((s) => scheduleOf(s).spanId !== scheduleOf(retried).spanId)!;
    expect(firstChat.attributes['livecontext.attempt']).toBe(1);
    // Turn 1's model calls hang under the input's update handler, not under the run's span.
    for (const start of named(first, 'StartActivity:callModel')) expect(byId.get(start.parentSpanId!)?.name).toBe('HandleUpdate:ask');
    // The workflow's span began on the killed worker and ended on the second, once, in the start's trace.
    const runs = received.filter((s) => s.name === 'RunWorkflow:agentWorkflow');
    expect(runs).toHaveLength(1);
    expect(runs[0]!.traceId).toBe(first);
    // Turn 2, served by the replaying worker, is a trace of its own: update → model call.
    expect(named(second, 'StartWorkflowUpdate:ask')).toHaveLength(1);
    expect(named(second, 'HandleUpdate:ask')).toHaveLength(1);
    expect(named(second, 'StartActivity:callModel')).toHaveLength(1);
    expect(named(second, 'chat flaky')).toHaveLength(1);
    // Every parent that a span names was exported: replay gave the spans the same ids.
    const orphans = received.filter((s) => s.parentSpanId && !ids.includes(s.parentSpanId)).map((s) => s.name);
    expect(orphans).toEqual([]);
    expect(received.some((s) => JSON.stringify(s.attributes).includes('please record'))).toBe(false);
  } finally {
    await conn.connection.close();
  }
});
