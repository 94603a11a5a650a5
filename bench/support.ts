/** Shared helpers of the benchmarks: the server, workers on both sides, history sizes, statistics. */
import { randomUUID } from 'node:crypto';
import { Client, type WorkflowHandle } from '@temporalio/client';
import type { Duration } from '@temporalio/common';
import { temporal } from '@temporalio/proto';
import type { TestWorkflowEnvironment } from '@temporalio/testing';
import { type NativeConnection, Worker, type WorkflowBundle } from '@temporalio/worker';
import { z } from 'zod';
import { ScriptedModelProvider, defineTool, type ScriptedRequest, type ScriptStep } from '../activities/index';
import { unwrap } from '../agent/index';
import { AgentClient, type AgentClientOptions } from '../client/agent-client';
import { createLivecontextWorker } from '../worker/create-worker';
import * as baselineActivities from './baseline/activities';
import { type BaselineOutcome, type BaselineState, type baselineAgent, ask, configure, sendInput, waitForAnswer } from './baseline/workflows';

export interface Bench {
  env: TestWorkflowEnvironment;
  /** Worker connection to the env's server. */
  native: NativeConnection;
  /** Client with livecontextDataConverter(), as workers and clients of livecontext must agree. */
  client: Client;
  /** Client with Temporal's default converter, for the baseline. */
  baselineClient: Client;
  livecontextBundle: WorkflowBundle;
  baselineBundle: WorkflowBundle;
  workspaceRoot: string;
  /** `--name value` options from the command line (e.g. lifetime's `--sizes`). */
  options?: Record<string, string>;
  /** The dev server's Prometheus port (its request counters: bench/server-requests.ts). */
  metricsPort?: number;
}

/** One row of the results table; numbers are formatted by the table printer. */
export interface Row {
  figure: string;
  livecontext: number | string | null;
  baseline: number | string | null;
  ratio?: number | null;
}

export interface BenchResult {
  /** Every figure, written to latest.json. */
  figures: Record<string, unknown>;
  rows: Row[];
  /** A table of the benchmark's own, printed after the suite's (markdown). */
  table?: string;
}

const started = Date.now();
export function progress(message: string): void {
  process.stderr.write(`[bench ${((Date.now() - started) / 1000).toFixed(1).padStart(6)} s] ${message}\n`);
}

export function uniqueId(prefix: string): string {
  return `${prefix}-${randomUUID().slice(0, 8)}`;
}

// ---- the livecontext side ----------------------------------------------------------------------

/** A trivial registered tool: the per-turn tool call of the history benchmark. */
export const echoTool = defineTool({
  name: 'bench_echo',
  description: 'Echo a short text back.',
  parameters: z.object({ text: z.string() }),
  execute: ({ text }) => `echo: ${text}`,
});

/** A ~`bytes`-long user input for turn `i`. */
export function inputText(i: number, bytes = 200): string {
  return `Turn ${i}: please look at this and answer. ${'x'.repeat(bytes)}`.slice(0, bytes);
}

const lastEntryKind = (req: ScriptedRequest) => unwrap(req.messages[req.messages.length - 1]).kind;
const filler = (bytes: number, step: number) => `answer ${step}: ${'lorem ipsum dolor sit amet '.repeat(Math.ceil(bytes / 27))}`.slice(0, bytes);

/**
 * The scripted models (no LLM): functions of the request.
 * - `tool1k`: on input, one bench_echo call; after its result, a ~1 KB answer (2 model calls, 1 tool per turn).
 * - `long8k`: an ~8 KB answer to every input (1 model call per turn).
 * - `instant`: a one-word answer (1 model call per turn).
 */
export function benchModels(): ScriptedModelProvider {
  return new ScriptedModelProvider({
    tool1k: (req): ScriptStep =>
      lastEntryKind(req) === 'model_input' ? { toolCalls: [{ name: echoTool.name, args: { text: `turn ${req.step}` } }] } : { text: filler(1024, req.step) },
    long8k: (req): ScriptStep => ({ text: filler(8192, req.step) }),
    instant: (req): ScriptStep => ({ text: `ok ${req.step}` }),
  });
}

/** A livecontext worker (createLivecontextWorker, scripted models, bench_echo) on its own task queue. */
export function livecontextWorker(bench: Bench, taskQueue: string): Promise<Worker> {
  return createLivecontextWorker({
    connection: bench.native,
    taskQueue,
    tools: [echoTool],
    models: [benchModels()],
    workspaceRoot: bench.workspaceRoot,
    workflowBundle: bench.livecontextBundle,
  });
}

export function agentClient(bench: Bench, taskQueue: string, options?: AgentClientOptions): AgentClient {
  return new AgentClient(bench.client, taskQueue, options);
}

// ---- the baseline side -------------------------------------------------------------------------

export function baselineWorker(bench: Bench, taskQueue: string): Promise<Worker> {
  return Worker.create({
    connection: bench.native,
    taskQueue,
    workflowBundle: bench.baselineBundle,
    activities: baselineActivities,
  });
}

/** The baseline's client: the same calls as AgentClient's start/send/waitForAnswer/ask/configure. */
export class BaselineClient {
  constructor(
    readonly client: Client,
    readonly taskQueue: string,
  ) {}

  handle(id: string): WorkflowHandle<typeof baselineAgent> {
    return this.client.workflow.getHandle(id);
  }

  start(id: string, state: BaselineState, options: { workflowTaskTimeout?: Duration } = {}): Promise<WorkflowHandle<typeof baselineAgent>> {
    return this.client.workflow.start<typeof baselineAgent>('baselineAgent', { workflowId: id, taskQueue: this.taskQueue, args: [state], ...options });
  }

  send(id: string, text: string): Promise<{ inputSeq: number }> {
    return this.handle(id).executeUpdate(sendInput, { args: [{ text }] });
  }

  async waitForAnswer(id: string, inputSeq: number): Promise<BaselineOutcome> {
    for (;;) {
      const outcome = await this.handle(id).executeUpdate(waitForAnswer, { args: [{ inputSeq }] });
      if (outcome.status !== 'continued') return outcome;
    }
  }

  /** One update per turn, as AgentClient.ask. */
  async ask(id: string, text: string): Promise<BaselineOutcome> {
    const outcome = await this.handle(id).executeUpdate(ask, { args: [{ text }] });
    return outcome.status === 'continued' ? this.waitForAnswer(id, outcome.inputSeq) : outcome;
  }

  configure(id: string, historyBudgetBytes: number): Promise<void> {
    return this.handle(id).executeUpdate(configure, { args: [{ historyBudgetBytes }] });
  }
}

export function baselineClient(bench: Bench, taskQueue: string): BaselineClient {
  return new BaselineClient(bench.baselineClient, taskQueue);
}

/** Both sides of a comparison: a task queue each (`<prefix>-lc`, `<prefix>-bl`), their clients, and an agent id on each. */
export function bothSides(bench: Bench, prefix: string) {
  const queues = { livecontext: uniqueId(`${prefix}-lc`), baseline: uniqueId(`${prefix}-bl`) };
  return {
    queues,
    agents: agentClient(bench, queues.livecontext),
    baseline: baselineClient(bench, queues.baseline),
    agentId: uniqueId(`${prefix}-agent`),
    baselineId: uniqueId(`${prefix}-baseline`),
  };
}

/** Runs both workers (each on its own task queue) while `fn` runs. */
export async function withWorkers<T>(bench: Bench, queues: { livecontext: string; baseline: string }, fn: () => Promise<T>): Promise<T> {
  const lc = await livecontextWorker(bench, queues.livecontext);
  const bl = await baselineWorker(bench, queues.baseline);
  return lc.runUntil(bl.runUntil(fn()));
}

// ---- history -----------------------------------------------------------------------------------

type Event = temporal.api.history.v1.IHistoryEvent;
const { EventType } = temporal.api.enums.v1;

/** One run's history as the server stores it: the sum of its events' protobuf encodings. */
export async function historyBytes(client: Client, workflowId: string, runId?: string): Promise<number> {
  const history = await client.workflow.getHandle(workflowId, runId).fetchHistory();
  return encodedSize(history.events ?? []);
}

export function encodedSize(events: Event[]): number {
  return events.reduce((sum, e) => sum + temporal.api.history.v1.HistoryEvent.encode(e).finish().length, 0);
}

/** Every run of a workflow id (continue-as-new chains), oldest first. */
export async function runIds(client: Client, workflowId: string): Promise<string[]> {
  const runs: Array<{ runId: string; start: number }> = [];
  for await (const wf of client.workflow.list({ query: `WorkflowId = '${workflowId}'` })) runs.push({ runId: wf.runId, start: wf.startTime.getTime() });
  return runs.sort((a, b) => a.start - b.start).map((r) => r.runId);
}

/** Total history bytes over every run of a workflow id. */
export async function historyBytesAllRuns(client: Client, workflowId: string): Promise<{ bytes: number; runs: number }> {
  const ids = await runIds(client, workflowId);
  let bytes = 0;
  for (const runId of ids) bytes += await historyBytes(client, workflowId, runId);
  return { bytes, runs: ids.length };
}

const millis = (t: Event['eventTime']) => Number(t?.seconds ?? 0) * 1000 + (t?.nanos ?? 0) / 1e6;

/** Started→Completed of the workflow task whose completion is event `completedEventId`. */
export function workflowTaskMs(events: Event[], completedEventId: number): number | null {
  const completed = events.find((e) => Number(e.eventId) === completedEventId);
  const startedId = Number(completed?.workflowTaskCompletedEventAttributes?.startedEventId ?? 0);
  const startedEvent = events.find((e) => Number(e.eventId) === startedId);
  if (!completed || !startedEvent) return null;
  return millis(completed.eventTime) - millis(startedEvent.eventTime);
}

/** Server-side duration of the workflow task that issued a run's continue-as-new. */
export function continueAsNewTaskMs(events: Event[]): number | null {
  const can = events.find((e) => e.eventType === EventType.EVENT_TYPE_WORKFLOW_EXECUTION_CONTINUED_AS_NEW);
  const id = Number(can?.workflowExecutionContinuedAsNewEventAttributes?.workflowTaskCompletedEventId ?? 0);
  return id ? workflowTaskMs(events, id) : null;
}

/** Server-side duration of a run's first workflow task. */
export function firstWorkflowTaskMs(events: Event[]): number | null {
  const completed = events.find((e) => e.eventType === EventType.EVENT_TYPE_WORKFLOW_TASK_COMPLETED);
  return completed ? workflowTaskMs(events, Number(completed.eventId)) : null;
}

// ---- numbers -----------------------------------------------------------------------------------

/** Nearest-rank percentile. */
export function percentile(values: number[], p: number): number {
  const sorted = [...values].sort((a, b) => a - b);
  return sorted[Math.min(sorted.length - 1, Math.max(0, Math.ceil((p / 100) * sorted.length) - 1))];
}

/** The median proper: for an even count, the mean of the middle two (percentile(xs, 50) takes the lower). */
export function median(xs: number[]): number {
  const sorted = [...xs].sort((a, b) => a - b);
  const mid = sorted.length >> 1;
  return sorted.length % 2 ? sorted[mid] : (sorted[mid - 1] + sorted[mid]) / 2;
}

export function ratio(a: number | null | undefined, b: number | null | undefined): number | null {
  return a == null || b == null || b === 0 ? null : round(a / b, 2);
}

export function round(x: number, digits = 1): number {
  const f = 10 ** digits;
  return Math.round(x * f) / f;
}

export async function timed<T>(fn: () => Promise<T>): Promise<{ ms: number; value: T }> {
  const t0 = performance.now();
  const value = await fn();
  return { ms: performance.now() - t0, value };
}

/** Runs `fn` n times, one after the other. */
export async function sequentially(n: number, fn: (i: number) => Promise<unknown>): Promise<void> {
  for (let i = 0; i < n; i++) await fn(i);
}

/** `turns` sequential turns through `ask`, each of which must be answered; progress every 100. */
export async function runTurns(label: string, turns: number, ask: (text: string) => Promise<{ status: string }>): Promise<void> {
  for (let i = 1; i <= turns; i++) {
    const { status } = await ask(`question ${i}`);
    if (status !== 'answered') throw new Error(`${label}: turn ${i} ended ${status}`);
    if (i % 100 === 0) progress(`${label}: ${i}/${turns} turns`);
  }
}
