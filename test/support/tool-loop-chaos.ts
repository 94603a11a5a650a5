/**
 * What the two chaos runs (test/chaos/chaos-suite.ts on the dev server, test/cluster/topology-chaos.cluster.ts
 * across the topology) share: the fake model's tool loop and the count of the `record` tool's executions.log.
 */
import { existsSync, readFileSync } from 'node:fs';
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

export interface ToolCallCounts {
  /** Calls that finished at least once. */
  completed: number;
  /** A call that had finished run again as a new activity (attempt 1): the agent scheduled it twice. */
  reExecuted: number;
  /** A call that had finished run again as Temporal's next attempt: its worker died before reporting. */
  retried: number;
}

/** Counts one agent's `record` calls from its executions.log (absent: none). */
export function countToolCalls(logFile: string): ToolCallCounts {
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
