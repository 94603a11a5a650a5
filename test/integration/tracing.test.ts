/**
 * OpenTelemetry traces on the real dev server with the real SDK: Temporal's interceptors carry one
 * trace from the client's span through the workflow into the activities, where callModel opens a GenAI
 * `chat` span and executeTool an `execute_tool` span. Prompt text only with LIVECONTEXT_TRACE_CONTENT=1;
 * nothing is set up without OTEL_* variables; a worker that replays every workflow task (no cache) and
 * a replay of the whole history export no span twice.
 */
import { mkdtempSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { ProxyTracerProvider, trace } from '@opentelemetry/api';
import { InMemorySpanExporter, type ReadableSpan, SimpleSpanProcessor } from '@opentelemetry/sdk-trace-base';
import { makeWorkflowExporter } from '@temporalio/interceptors-opentelemetry';
import { NativeConnection, Worker, bundleWorkflowCode } from '@temporalio/worker';
import { type Script, type ScriptStep, ScriptedModelProvider } from '../../activities/index';
import { TRACING_WORKFLOW_MODULE } from '../../activities/telemetry/worker-tracing';
import { connectAgents } from '../../client/connect';
import { livecontextDataConverter } from '../../common/codec/data-converter';
import { type Tracing, activeTracing, startTracing, tracingWanted } from '../../common/telemetry';
import { WORKFLOWS_PATH, createLivecontextWorker } from '../../worker/create-worker';
import { loopScript } from '../fixtures/scripts';
import { recordTool } from '../fixtures/test-tools';
import { testAddress, uniqueId } from '../support/temporal';

jest.setTimeout(180_000);

const OTEL_VARS = Object.keys(process.env).filter((k) => k.startsWith('OTEL_') || k === 'LIVECONTEXT_TRACE_CONTENT');
for (const k of OTEL_VARS) delete process.env[k];
process.env.TEMPORAL_ADDRESS = testAddress();

let bundle: { code: string };
const memory = new InMemorySpanExporter();
let tracing: Tracing | undefined;
let agents: Awaited<ReturnType<typeof connectAgents>> | undefined;

beforeAll(async () => {
  // The agent workflows with Temporal's OpenTelemetry workflow interceptors in the bundle.
  const quiet = { info() {}, warn() {}, error: console.error, debug() {}, trace() {}, log() {} };
  bundle = await bundleWorkflowCode({ workflowsPath: WORKFLOWS_PATH, workflowInterceptorModules: [TRACING_WORKFLOW_MODULE], logger: quiet as never });
});
afterAll(async () => {
  await agents?.connection.close();
  await tracing?.shutdown();
});

const spansNamed = (spans: readonly ReadableSpan[], prefix: string) => spans.filter((s) => s.name.startsWith(prefix));
const parentOf = (s: ReadableSpan) => s.parentSpanId;

/** Runs a turn with two tool calls (loopScript) under the test's own span; returns that span's trace id. */
async function tracedTurn(options: { maxCachedWorkflows?: number; prompt: string; script?: Script }) {
  const taskQueue = uniqueId('tracing');
  const agentId = uniqueId('traced');
  const connection = await NativeConnection.connect({ address: testAddress() });
  try {
    const worker = await createLivecontextWorker({
      connection,
      taskQueue,
      workflowBundle: bundle,
      workspaceRoot: mkdtempSync(path.join(tmpdir(), 'lc-trace-')),
      tools: [recordTool],
      models: [new ScriptedModelProvider({ loop: options.script ?? loopScript })],
      ...(options.maxCachedWorkflows !== undefined ? { workerOptions: { maxCachedWorkflows: options.maxCachedWorkflows } } : {}),
    });
    const client = new (agents!.agents.constructor as typeof import('../../client/agent-client').AgentClient)(agents!.client, taskQueue);
    const traceId = await worker.runUntil(
      trace.getTracer('test').startActiveSpan('test turn', async (span) => {
        try {
          await client.start(agentId, { model: 'scripted:loop' });
          const outcome = await client.ask(agentId, options.prompt);
          expect(outcome).toMatchObject({ status: 'answered' });
          // The workflow's own span ends with its run: stop the agent so it is exported.
          await client.stop(agentId, 'test over');
          await client.handle(agentId).result();
          return span.spanContext().traceId;
        } finally {
          span.end();
        }
      }),
    );
    await tracing!.flush();
    return { traceId, agentId };
  } finally {
    await connection.close();
  }
}

test('without OTEL_* variables nothing is set up: no SDK, no provider, no client interceptors', async () => {
  expect(tracingWanted({})).toBe(false);
  expect(tracingWanted({ OTEL_EXPORTER_OTLP_ENDPOINT: 'http://127.0.0.1:4318' })).toBe(true);
  expect(tracingWanted({ OTEL_SERVICE_NAME: 'x', OTEL_SDK_DISABLED: 'true' })).toBe(false);
  expect(tracingWanted({ OTEL_TRACES_EXPORTER: 'none' })).toBe(false);
  expect(startTracing()).toBeUndefined();
  expect(activeTracing()).toBeUndefined();
  // The API's global provider still delegates to nothing: livecontext's spans are no-ops.
  expect((trace.getTracerProvider() as ProxyTracerProvider).getDelegateTracer('livecontext')).toBeUndefined();
  const plain = await connectAgents();
  try {
    expect((plain.client.options.interceptors.workflow as unknown[] | undefined) ?? []).toHaveLength(0);
  } finally {
    await plain.connection.close();
  }
  // A worker gets no workflow span sink and no activity interceptors.
  const connection = await NativeConnection.connect({ address: testAddress() });
  try {
    const worker = await createLivecontextWorker({
      connection,
      taskQueue: uniqueId('untraced'),
      workflowBundle: bundle,
      models: [new ScriptedModelProvider({ loop: loopScript })],
    });
    expect(Object.keys(worker.options.sinks ?? {})).not.toContain('exporter');
    expect(worker.options.interceptors.activity ?? []).toHaveLength(0);
    await worker.runUntil(Promise.resolve()); // a worker that never ran would hold the connection open
  } finally {
    await connection.close();
  }
  expect(Object.keys(require.cache).some((m) => m.includes(`${path.sep}sdk-trace-node${path.sep}`))).toBe(false);
});

test('one trace: client span → workflow → model call (GenAI attributes) → tools → model call; no prompt text by default', async () => {
  tracing = startTracing({ spanProcessor: new SimpleSpanProcessor(memory) });
  expect(tracing).toBeDefined();
  agents = await connectAgents(); // picks up the running tracing: client interceptors on
  expect((agents.client.options.interceptors.workflow as unknown[]).length).toBe(1);

  const { traceId } = await tracedTurn({ prompt: 'please record the secret plan' });
  const spans = memory.getFinishedSpans().filter((s) => s.spanContext().traceId === traceId);
  const names = spans.map((s) => s.name);
  const spanIds = spans.map((s) => s.spanContext().spanId);
  expect(new Set(spanIds).size).toBe(spanIds.length);
  expect(names).toEqual(
    expect.arrayContaining(['test turn', 'StartWorkflow:agentWorkflow', 'RunWorkflow:agentWorkflow', 'StartWorkflowUpdate:ask', 'HandleUpdate:ask']),
  );

  const chats = spansNamed(spans, 'chat ');
  expect(chats).toHaveLength(2);
  const [first, second] = [...chats].sort((a, b) => a.startTime[0] - b.startTime[0] || a.startTime[1] - b.startTime[1]);
  expect(first!.attributes).toMatchObject({
    'gen_ai.operation.name': 'chat',
    'gen_ai.provider.name': 'scripted',
    'gen_ai.request.model': 'loop',
    'gen_ai.response.finish_reasons': ['tool_calls'],
  });
  expect(second!.attributes).toMatchObject({ 'gen_ai.usage.input_tokens': 10, 'gen_ai.usage.output_tokens': 2, 'gen_ai.response.finish_reasons': ['stop'] });
  expect(typeof second!.attributes['livecontext.time_to_first_token_ms']).toBe('number');
  expect(second!.events.map((e) => e.name)).toContain('gen_ai.first_token');

  const tools = spansNamed(spans, 'execute_tool ');
  expect(tools.map((s) => s.attributes['gen_ai.tool.call.id']).sort()).toEqual(['call_0_0', 'call_0_1']);
  expect(tools.every((s) => s.attributes['gen_ai.tool.name'] === 'record' && s.attributes['livecontext.tool.status'] === 'Success')).toBe(true);

  // Nesting: each chat/tool span is inside its activity's span, which is inside the workflow's schedule span.
  const byId = new Map(spans.map((s) => [s.spanContext().spanId, s]));
  for (const s of [...chats, ...tools]) {
    const run = byId.get(parentOf(s)!);
    expect(run?.name).toMatch(/^RunActivity:(callModel|executeTool)$/);
    const schedule = byId.get(parentOf(run!)!);
    expect(schedule?.name).toMatch(/^StartActivity:(callModel|executeTool)$/);
    // Scheduled in the turn's context: under the input's update handler, under the client's update call.
    const handler = byId.get(parentOf(schedule!)!);
    expect(handler?.name).toBe('HandleUpdate:ask');
    expect(byId.get(parentOf(handler!)!)?.name).toBe('StartWorkflowUpdate:ask');
  }
  // No prompt or answer text unless asked for.
  expect(JSON.stringify(spans.map((s) => s.attributes))).not.toContain('secret plan');
  expect(chats.some((s) => 'gen_ai.input.messages' in s.attributes)).toBe(false);
});

test('a retried model call: two attempts under one schedule span, the failed one an error chat span', async () => {
  memory.reset();
  let failed = false;
  const flaky: Script = (req) => {
    const step = (loopScript as (r: typeof req) => ScriptStep)(req);
    if (req.step !== 1 || failed) return step;
    return { ...step, before: () => ((failed = true), Promise.reject(new Error('connection reset by the test'))) };
  };
  const { traceId } = await tracedTurn({ prompt: 'please record', script: flaky });
  const spans = memory.getFinishedSpans().filter((s) => s.spanContext().traceId === traceId);
  const byId = new Map(spans.map((s) => [s.spanContext().spanId, s]));
  const chats = spansNamed(spans, 'chat ');
  expect(chats).toHaveLength(3);
  const failedChat = chats.find((s) => s.status.code === 2 /* ERROR */);
  expect(failedChat?.attributes).toMatchObject({ 'error.type': 'ModelError.Connection', 'livecontext.attempt': 1 });
  const retried = chats.find((s) => s.attributes['livecontext.attempt'] === 2);
  expect(retried?.attributes).toMatchObject({ 'gen_ai.usage.output_tokens': 2 });
  // Both attempts run under the same schedule span: one model call, two tries.
  const scheduleOf = (s: ReadableSpan) => parentOf(byId.get(parentOf(s)!)!);
  expect(scheduleOf(failedChat!)).toBe(scheduleOf(retried!));
  expect(spansNamed(spans, 'StartActivity:callModel')).toHaveLength(2);
  expect(spansNamed(spans, 'RunActivity:callModel')).toHaveLength(3);
});

test('LIVECONTEXT_TRACE_CONTENT=1 puts prompt and answer text on the chat span', async () => {
  process.env.LIVECONTEXT_TRACE_CONTENT = '1';
  try {
    memory.reset();
    const { traceId } = await tracedTurn({ prompt: 'please record the open plan' });
    const chats = spansNamed(memory.getFinishedSpans(), 'chat ').filter((s) => s.spanContext().traceId === traceId);
    expect(chats).toHaveLength(2);
    expect(chats.some((s) => String(s.attributes['gen_ai.input.messages']).includes('open plan'))).toBe(true);
    expect(chats.some((s) => String(s.attributes['gen_ai.output.messages']).includes('all done'))).toBe(true);
  } finally {
    delete process.env.LIVECONTEXT_TRACE_CONTENT;
  }
});

test('replay exports no span twice: a worker without a workflow cache, then a replay of the whole history', async () => {
  memory.reset();
  // maxCachedWorkflows 0: every workflow task replays the history from the start.
  const { traceId, agentId } = await tracedTurn({ maxCachedWorkflows: 0, prompt: 'please record' });
  const spans = () => memory.getFinishedSpans().filter((s) => s.spanContext().traceId === traceId);
  const once = spans();
  const ids = once.map((s) => s.spanContext().spanId);
  expect(new Set(ids).size).toBe(ids.length);
  // Replayed spans keep their ids: every parent an activity or handler was told is a span of the trace.
  const orphans = once.filter((s) => s.parentSpanId && !ids.includes(s.parentSpanId)).map((s) => s.name);
  expect(orphans).toEqual([]);
  const count = (name: string) => once.filter((s) => s.name === name).length;
  expect(count('RunWorkflow:agentWorkflow')).toBe(1);
  expect(count('StartActivity:callModel')).toBe(2);
  expect(count('StartActivity:executeTool')).toBe(2);
  expect(count('HandleUpdate:ask')).toBe(1);

  const history = await agents!.client.workflow.getHandle(agentId).fetchHistory();
  await Worker.runReplayHistory(
    { workflowBundle: bundle, dataConverter: livecontextDataConverter(), sinks: { exporter: makeWorkflowExporter(tracing!.spanProcessor, tracing!.resource) } },
    history,
    agentId,
  );
  await tracing!.flush();
  expect(spans()).toHaveLength(once.length);
});
