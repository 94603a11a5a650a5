/**
 * Crash tolerance: the worker process is SIGKILLed while a tool runs and again while a model call runs.
 * A new worker process finishes the turn; completed tool calls are not run again; inputs sent while no
 * worker was running are all answered, in order, exactly once. The history then replays.
 */
import { existsSync, mkdtempSync, readFileSync, readdirSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { Worker } from '@temporalio/worker';
import type { HistoryEntry } from '../../agent/index';
import { FAILOVER_HEARTBEATS_CHANGE } from '../../workflows/activity-options';
import { maybeRecordHistory } from '../support/record-history';
import { type ChildWorker, startChildWorker } from '../support/child-worker';
import { connectTest, eventually, type TestContext, uniqueId, workflowBundle } from '../support/temporal';

let t: TestContext;
const taskQueue = uniqueId('crash');
let worker: ChildWorker | undefined;
beforeAll(async () => (t = await connectTest(taskQueue)));
afterAll(async () => {
  await worker?.kill();
  await t?.close();
});

const markerFrom = (dir: string, prefix: string, pid: number | undefined) => existsSync(dir) && readdirSync(dir).includes(`${prefix}-${pid}`);

test('SIGKILL mid-tool and mid-model-call: the turn finishes, nothing is lost, repeated or reordered', async () => {
  const workspaceRoot = mkdtempSync(path.join(tmpdir(), 'lc-ws-'));
  const controlDir = mkdtempSync(path.join(tmpdir(), 'lc-ctl-'));
  const agentId = uniqueId('crash-agent');
  const env = { taskQueue, workspaceRoot, controlDir };
  const log = () => readFileSync(path.join(workspaceRoot, agentId, 'executions.log'), 'utf8');

  worker = await startChildWorker(env);
  await t.agents.start(agentId, { model: 'scripted:crash' });
  const { inputSeq: first } = await t.agents.send(agentId, 'go');

  // Kill 1: while the slow tool (the 2nd of 3 calls) runs. record(a) has completed by then.
  await eventually(() => markerFrom(controlDir, 'started-b', worker!.proc.pid), 60_000, 'slow tool to start');
  expect(log()).toMatch(/^start a .*\ndone a\nstart b /);
  await worker.kill('SIGKILL');
  writeFileSync(path.join(controlDir, 'release-b'), '');

  // Kill 2: while the model call that follows the tool results runs.
  worker = await startChildWorker(env);
  await eventually(() => markerFrom(controlDir, 'started-model-1', worker!.proc.pid), 90_000, 'model call to start');
  await worker.kill('SIGKILL');

  // No worker now: inputs from other services keep arriving by signal, plus one by update in flight.
  await t.agents.signal(agentId, 'x1');
  await t.agents.signal(agentId, { text: 'x2', sender: 'billing-service' });
  await t.agents.signal(agentId, 'x3');
  writeFileSync(path.join(controlDir, 'release-model-1'), '');

  worker = await startChildWorker(env);
  const firstOutcome = await t.agents.waitForAnswer(agentId, first);
  expect(firstOutcome).toMatchObject({ status: 'answered' });
  const last = await t.agents.waitForAnswer(agentId, 4);
  expect(last).toMatchObject({ status: 'answered', answer: { contents: ['echo: x3'] } });

  // Completed tool calls ran once; the one killed mid-run ran again (at-least-once, same idempotency key).
  const starts = log().match(/^start \w+ \S+ \d+$/gm)!;
  expect(starts.filter((l) => l.startsWith('start a '))).toHaveLength(1);
  expect(starts.filter((l) => l.startsWith('start c '))).toHaveLength(1);
  const bStarts = starts.filter((l) => l.startsWith('start b '));
  expect(bStarts).toHaveLength(2);
  expect(new Set(bStarts.map((l) => l.split(' ')[2])).size).toBe(1); // same idempotency key on the retry
  expect(bStarts.map((l) => l.split(' ')[3])).toEqual(['1', '2']); // Temporal's next attempt, not a new call
  expect(log().match(/^done b$/gm)).toHaveLength(1);

  const history = await t.agents.history(agentId);
  expect(summarize(history)).toEqual([
    'input:go',
    'output:[record,slow,record]',
    'results:[Success,Success,Success]',
    'output:turn 1 done',
    'input:x1',
    'output:echo: x1',
    'input:x2',
    'output:echo: x2',
    'input:x3',
    'output:echo: x3',
  ]);
  expect(history.map((e) => e.seq)).toEqual(history.map((_, i) => i + 1));
  expect(history.find((e) => e.kind === 'model_input' && e.inputSeq === 3)).toMatchObject({ sender: 'billing-service' });
  // The tool killed mid-run records the attempts it took; the others took one and record none.
  const results = history.flatMap((e) => (e.kind === 'tool_results' ? e.results : []));
  expect(results.map((r) => r.metadata?.attempts)).toEqual([undefined, 2, undefined]);

  // The recorded history replays against the current workflow code.
  const recorded = await t.agents.handle(agentId).fetchHistory();
  await Worker.runReplayHistory({ workflowBundle: workflowBundle() }, recorded, agentId);
  await maybeRecordHistory(t.agents.handle(agentId), 'crash-recovery_v2.json');

  // Tools were scheduled with the failover heartbeat timeout; model calls as before. The change was taken up
  // by the worker's build mark (workflows/run-changes-by-build.ts), so no marker asks for it.
  const events = recorded.events ?? [];
  const heartbeatSeconds = (type: string) =>
    events
      .map((e) => e.activityTaskScheduledEventAttributes)
      .filter((a) => a?.activityType?.name === type)
      .map((a) => Number(a!.heartbeatTimeout?.seconds ?? 0));
  expect(new Set(heartbeatSeconds('executeTool'))).toEqual(new Set([4]));
  expect(new Set(heartbeatSeconds('callModel'))).toEqual(new Set([10]));
  const markers = events.map((e) => e.markerRecordedEventAttributes).filter((m) => m?.markerName === 'core_patch');
  const patchIds = markers.flatMap((m) => Object.values(m!.details ?? {}).flatMap((p) => (p.payloads ?? []).map((d) => payloadText(d.data))));
  expect(patchIds.filter((id) => id.includes(FAILOVER_HEARTBEATS_CHANGE))).toEqual([]);
});

const payloadText = (data: Uint8Array | null | undefined) => (data ? Buffer.from(data).toString('utf8') : '');

function summarize(history: HistoryEntry[]): string[] {
  return history.map((e) => {
    switch (e.kind) {
      case 'model_input':
        return `input:${e.sections.map((s) => s.content).join()}`;
      case 'model_output':
        return e.toolCalls.length ? `output:[${e.toolCalls.map((c) => c.toolName)}]` : `output:${e.contents.join()}`;
      case 'tool_results':
        return `results:[${e.results.map((r) => r.status)}]`;
      case 'system_instruction':
        return `system:${e.instruction}`;
      case 'widget_write':
        return `widget:${e.widget}`;
      case 'turn_end':
        return `turn_end:${e.reason}`;
      case 'compaction':
        return `compaction:${e.throughSeq}`;
      case 'model_failure':
        return `model_failure:${e.code}`;
      case 'rewind':
        return `rewind:${e.toSeq}`;
      case 'tool_rules':
        return `tool_rules:${e.rules.length}`;
      case 'a2a_push':
        return `a2a_push:${e.change}`;
    }
  });
}
