/**
 * What the two chaos runs (test/chaos/chaos-suite.ts on the dev server, test/cluster/topology-chaos.cluster.ts
 * across the topology) share: the fake model's tool loop and the count of what each agent's run left behind.
 */
import { existsSync, readFileSync } from 'node:fs';
import path from 'node:path';
import type { Client } from '@temporalio/client';
import { Worker } from '@temporalio/worker';
import type { HistoryEntry } from '../../agent/index';
import { livecontextDataConverter } from '../../common/codec/data-converter';
import { guardedForWorkers } from '../../common/codec/undecodable-guard';
import type { FakeOpenAIResponse, RecordedOpenAIRequest } from './fake-openai-server';

/** Two `record` calls labelled after the input's first line when the last message is an input, else an answer. */
export function toolLoopResponse(req: RecordedOpenAIRequest): FakeOpenAIResponse {
  const messages = req.body.messages as Array<{ role: string; content: string | null }>;
  const last = messages[messages.length - 1];
  if (last.role === 'user') {
    const label = String(last.content).split('\n')[0];
    return {
      kind: 'stream',
      toolCalls: [
        { name: 'record', arguments: JSON.stringify({ label: `${label}/a` }) },
        { name: 'record', arguments: JSON.stringify({ label: `${label}/b` }) },
      ],
    };
  }
  return { kind: 'stream', text: `done with ${messages.filter((m) => m.role === 'user').length} inputs` };
}

interface ToolCallCounts {
  /** Calls that finished at least once. */
  completed: number;
  /** A call that had finished run again as a new activity (attempt 1): the agent scheduled it twice. */
  reExecuted: number;
  /**
   * A call that had finished run again as Temporal's next attempt: its worker died before reporting. Allowed
   * only because `record` is marked `idempotent` (test/fixtures/test-tools.ts): a tool that is neither idempotent
   * nor has `reconcile` is not run again but waits to be resolved (the chaos suite's effects scenario counts that).
   */
  retried: number;
}

/** Counts one agent's `record` calls from its executions.log (absent: none). */
function countToolCalls(logFile: string): ToolCallCounts {
  const lines = existsSync(logFile) ? readFileSync(logFile, 'utf8').trim().split('\n') : [];
  const byKey = new Map<string, Array<{ kind: string; attempt: number }>>();
  let current: string | undefined;
  for (const line of lines) {
    // "start <label> <idempotency key> <attempt>" / "done <label>"; calls of one agent run one at a time.
    // (Labels hold spaces: the key and the attempt are the last two words.)
    const words = line.split(' ');
    const kind = words[0];
    if (kind === 'start') current = words[words.length - 2];
    if (current) byKey.set(current, [...(byKey.get(current) ?? []), { kind, attempt: Number(words[words.length - 1]) }]);
  }
  const counts: ToolCallCounts = { completed: 0, reExecuted: 0, retried: 0 };
  for (const events of byKey.values()) {
    const firstDone = events.findIndex((e) => e.kind === 'done');
    if (firstDone < 0) continue;
    counts.completed++;
    const restarts = events.slice(firstDone + 1).filter((e) => e.kind === 'start');
    if (restarts.some((e) => e.attempt === 1)) counts.reExecuted++;
    else if (restarts.length) counts.retried++;
  }
  return counts;
}

/** What chaos may not do, summed over agents: every figure but `completed` and `retried` (and `runs`) must be zero. */
export interface Damage extends ToolCallCounts {
  /** Inputs sent that are not in the agent's history. */
  lost: number;
  /** Inputs that stand twice in it. */
  duplicated: number;
  /** Workflow runs replayed, and those whose replay failed. */
  runs: number;
  replayFailures: number;
}

export const noDamage = (): Damage => ({ lost: 0, duplicated: 0, completed: 0, reExecuted: 0, retried: 0, runs: 0, replayFailures: 0 });

/**
 * Adds one agent's figures to `total`: its inputs against `sent`, its executions.log under `workspaceRoot`,
 * and a replay of each of its workflow runs (a failure also goes to `onReplayFailure`).
 */
export async function addAgentDamage(
  total: Damage,
  a: {
    client: Client;
    id: string;
    history: HistoryEntry[];
    sent: string[];
    workspaceRoot: string;
    workflowBundle: { codePath: string };
    onReplayFailure?: (runId: string, err: Error) => void;
  },
): Promise<void> {
  const inputs = a.history.flatMap((e) => (e.kind === 'model_input' ? [e.sections[0].content] : []));
  total.lost += a.sent.filter((text) => !inputs.includes(text)).length;
  total.duplicated += inputs.length - new Set(inputs).size;
  const calls = countToolCalls(path.join(a.workspaceRoot, a.id, 'executions.log'));
  total.completed += calls.completed;
  total.reExecuted += calls.reExecuted;
  total.retried += calls.retried;
  const replayed = await replayRuns(a);
  total.runs += replayed.runs;
  total.replayFailures += replayed.failures;
}

/** Replays each run of the workflow `id` against `workflowBundle`: how many runs, and how many failed (each also to `onReplayFailure`). */
export async function replayRuns(a: {
  client: Client;
  id: string;
  workflowBundle: { codePath: string };
  onReplayFailure?: (runId: string, err: Error) => void;
}): Promise<{ runs: number; failures: number }> {
  const counts = { runs: 0, failures: 0 };
  for await (const wf of a.client.workflow.list({ query: `WorkflowId = '${a.id}'` })) {
    counts.runs++;
    const h = await a.client.workflow.getHandle(a.id, wf.runId).fetchHistory();
    await Worker.runReplayHistory({ workflowBundle: a.workflowBundle, dataConverter: guardedForWorkers(livecontextDataConverter()) }, h, a.id).catch(
      (err: Error) => {
        counts.failures++;
        a.onReplayFailure?.(wf.runId, err);
      },
    );
  }
  return counts;
}
