/**
 * The gateway's span per HTTP request, on the real dev server with the real OpenTelemetry SDK: a request
 * that carries a W3C `traceparent` continues the caller's trace, and the route's Temporal calls hang
 * under the gateway's span, so one trace goes caller → gateway → update → workflow → model call → tools.
 * A request without one starts a trace of its own.
 */
import { mkdtempSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { InMemorySpanExporter, type ReadableSpan, SimpleSpanProcessor } from '@opentelemetry/sdk-trace-base';
import { Client } from '@temporalio/client';
import { NativeConnection, bundleWorkflowCode } from '@temporalio/worker';
import { ScriptedModelProvider } from '../../activities/index';
import { TRACING_WORKFLOW_MODULE } from '../../activities/telemetry/worker-tracing';
import { AgentClient } from '../../client/agent-client';
import { livecontextDataConverter } from '../../common/codec/data-converter';
import { type Tracing, startTracing } from '../../common/telemetry';
import { WORKFLOWS_PATH, createLivecontextWorker } from '../../worker/create-worker';
import { loopScript } from '../fixtures/scripts';
import { recordTool } from '../fixtures/test-tools';
import { type TestGateway, startTestGateway } from '../support/gateway';
import { testAddress, uniqueId } from '../support/temporal';

jest.setTimeout(120_000);

const memory = new InMemorySpanExporter();
let tracing: Tracing | undefined;
afterAll(async () => {
  await tracing?.shutdown();
});

test('a request with a traceparent: caller → gateway span → update → workflow → model call → tools, one trace', async () => {
  tracing = startTracing({ spanProcessor: new SimpleSpanProcessor(memory), env: {} });
  expect(tracing).toBeDefined();
  const quiet = { info() {}, warn() {}, error: console.error, debug() {}, trace() {}, log() {} };
  const bundle = await bundleWorkflowCode({ workflowsPath: WORKFLOWS_PATH, workflowInterceptorModules: [TRACING_WORKFLOW_MODULE], logger: quiet as never });
  const taskQueue = uniqueId('gw-trace');
  const agentId = uniqueId('gw-traced');
  const connection = await NativeConnection.connect({ address: testAddress() });
  let gateway: TestGateway | undefined;
  try {
    const worker = await createLivecontextWorker({
      connection,
      taskQueue,
      workflowBundle: bundle,
      workspaceRoot: mkdtempSync(path.join(tmpdir(), 'lc-gw-trace-')),
      tools: [recordTool],
      models: [new ScriptedModelProvider({ loop: loopScript })],
      tracing,
    });
    const client = new Client({
      connection: connection as never,
      dataConverter: livecontextDataConverter(),
      interceptors: { workflow: tracing!.clientInterceptors() },
    });
    const agents = new AgentClient(client, taskQueue);
    gateway = await startTestGateway(agents);
    const callerTrace = '4bf92f3577b34da6a3ce929d0e0e4736';
    const callerSpan = '00f067aa0ba902b7';
    await worker.runUntil(async () => {
      await agents.start(agentId, { model: 'scripted:loop' });
      const res = await gateway!.request(
        'POST',
        `/agents/${agentId}/input?wait=1`,
        { text: 'please record' },
        { headers: { traceparent: `00-${callerTrace}-${callerSpan}-01` } },
      );
      expect(res.status).toBe(200);
      expect(res.body.outcome).toMatchObject({ status: 'answered' });
      // No traceparent: the request is a trace of its own.
      expect((await gateway!.request('GET', `/agents/${agentId}`)).status).toBe(200);
    });
    await tracing!.flush();

    const spans = memory.getFinishedSpans();
    const inTrace = spans.filter((s) => s.spanContext().traceId === callerTrace);
    const byId = new Map(inTrace.map((s) => [s.spanContext().spanId, s]));
    const named = (prefix: string) => inTrace.filter((s) => s.name.startsWith(prefix));
    // The gateway's span continues the caller's: same trace, the caller's span as parent, the route's pattern as name.
    const request = named('POST ');
    expect(request.map((s) => s.name)).toEqual(['POST /agents/:id/input']);
    expect(request[0]!.parentSpanId).toBe(callerSpan);
    expect(request[0]!.kind).toBe(1 /* SERVER */);
    expect(request[0]!.attributes).toMatchObject({ 'http.request.method': 'POST', 'http.response.status_code': 200 });
    const gatewaySpanId = request[0]!.spanContext().spanId;
    // The route's Temporal calls are the gateway span's children.
    const updates = named('StartWorkflowUpdate:');
    expect(updates.length).toBeGreaterThanOrEqual(1);
    for (const u of updates) expect(u.parentSpanId).toBe(gatewaySpanId);
    // … and the turn's work is in the same trace: handler → model call → tools → model call.
    expect(named('HandleUpdate:').length).toBeGreaterThanOrEqual(1);
    expect(named('chat loop')).toHaveLength(2);
    expect(named('execute_tool record')).toHaveLength(2);
    const ancestors = (s: ReadableSpan): string[] => {
      const parent = s.parentSpanId ? byId.get(s.parentSpanId) : undefined;
      return parent ? [parent.name, ...ancestors(parent)] : [];
    };
    for (const chat of named('chat loop')) expect(ancestors(chat)).toContain('POST /agents/:id/input');
    // The GET without a traceparent started a trace of its own.
    const get = spans.filter((s) => s.name === 'GET /agents/:id');
    expect(get).toHaveLength(1);
    expect(get[0]!.spanContext().traceId).not.toBe(callerTrace);
    expect(get[0]!.parentSpanId).toBeUndefined();
  } finally {
    await gateway?.close();
    await connection.close();
  }
});
