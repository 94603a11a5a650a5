/**
 * Metrics on the real dev server, scraped from the Prometheus endpoint of real worker processes
 * (LIVECONTEXT_METRICS_PROMETHEUS): Temporal's worker metrics and livecontext's own — turns, model calls
 * (a retried one included), tokens and cost by model, tool failures by kind, an agent blocked on
 * approval (and the gauge of agents by state, from visibility) — with exact numbers. The worker is
 * then SIGKILLed; the next one replays the agent's whole history for a third turn and a reset, and
 * counts only what it did itself: replay adds nothing. An agent stopped by its budget shows as
 * blocked on an error (counter and gauge).
 */
import { mkdtempSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { AgentClient } from '../../client/agent-client';
import { connectAgents } from '../../client/connect';
import { freePort } from '../../common/ports';
import { type ChildWorker, startChildWorker } from '../support/child-worker';
import { eventually, testAddress, uniqueId, waitingForApproval } from '../support/temporal';

jest.setTimeout(180_000);

const workers: ChildWorker[] = [];
afterAll(async () => {
  for (const w of workers) await w.kill();
});

interface Sample {
  name: string;
  labels: Record<string, string>;
  value: number;
}

/** The samples of a Prometheus text exposition. */
async function scrape(port: number): Promise<Sample[]> {
  const text = await (await fetch(`http://127.0.0.1:${port}/metrics`)).text();
  const samples: Sample[] = [];
  for (const line of text.split('\n')) {
    const m = /^([a-zA-Z_:][a-zA-Z0-9_:]*)(?:\{(.*)\})?\s+(\S+)$/.exec(line.trim());
    if (!m) continue;
    const labels = Object.fromEntries([...(m[2] ?? '').matchAll(/([a-zA-Z_][a-zA-Z0-9_]*)="((?:[^"\\]|\\.)*)"/g)].map((l) => [l[1]!, l[2]!]));
    samples.push({ name: m[1]!, labels, value: Number(m[3]) });
  }
  return samples;
}

/** Scrapes `port` again until `check` holds (within 30 s); the samples it held for. */
function scrapeUntil(port: number, check: (samples: Sample[]) => boolean, what: string): Promise<Sample[]> {
  return eventually(
    async () => {
      const s = await scrape(port);
      return check(s) ? s : undefined;
    },
    30_000,
    what,
  );
}

/** The sum of the samples named `name` whose labels include `where`. */
const total = (samples: Sample[], name: string, where: Record<string, string> = {}) =>
  samples.filter((s) => s.name === name && Object.entries(where).every(([k, v]) => s.labels[k] === v)).reduce((sum, s) => sum + s.value, 0);

test('a tool turn with failing tools and a retried model call, a turn blocked on approval, a SIGKILL and a replay that counts nothing twice, an agent blocked on its budget', async () => {
  const taskQueue = uniqueId('metrics');
  const agentId = uniqueId('metered');
  const controlDir = mkdtempSync(path.join(tmpdir(), 'lc-metrics-ctl-'));
  const prices = path.join(controlDir, 'prices.json');
  writeFileSync(prices, JSON.stringify({ 'scripted:metrics': { input: 3, output: 15 } }));
  const workerEnv = (port: number, noCache = false) => ({
    taskQueue,
    workspaceRoot: mkdtempSync(path.join(tmpdir(), 'lc-metrics-ws-')),
    controlDir,
    extraEnv: {
      LIVECONTEXT_METRICS_PROMETHEUS: `127.0.0.1:${port}`,
      LIVECONTEXT_PRICES: prices,
      TEST_WORKER_MORE_TOOLS: '1',
      LIVECONTEXT_METRICS_AGENT_STATES_SECONDS: '1',
      ...(noCache ? { TEST_WORKER_NO_CACHE: '1' } : {}),
    },
  });
  process.env.TEMPORAL_ADDRESS = testAddress();
  const { client, connection } = await connectAgents();
  const agents = new AgentClient(client, taskQueue);
  try {
    const firstPort = await freePort();
    workers.push(await startChildWorker(workerEnv(firstPort)));
    await agents.start(agentId, { model: 'scripted:metrics' });
    // Turn 1: boom throws, record works, typed gets no arguments; the answer's first attempt fails.
    expect(await agents.ask(agentId, 'try the tools')).toMatchObject({ status: 'answered' });
    // Turn 2: a prod deploy waits for a person.
    await agents.send(agentId, 'deploy the api');
    const waiting = await waitingForApproval(agents, agentId, 30_000, 'the approval request');
    // The agents gauge (counted by visibility every second here) shows it blocked on approval.
    const agentsIn = (samples: Sample[], state: string) => total(samples, 'livecontext_agents', { state, taskQueue });
    await scrapeUntil(firstPort, (s) => agentsIn(s, 'WaitingApproval') === 1, 'the gauge to show one agent waiting for approval');
    await agents.decide(agentId, { toolCallId: waiting.awaitingApproval[0]!.toolCallId, approved: true });
    await eventually(
      async () => (await agents.state(agentId)).runState === 'WaitingInput' && (await agents.state(agentId)).lastSeq > waiting.lastSeq + 1,
      30_000,
      'turn 2 to end',
    );

    const model = { model: 'scripted:metrics' };
    // Workflow metrics leave the sandbox when the workflow task completes: wait for the last one.
    const first = await scrapeUntil(firstPort, (s) => total(s, 'livecontext_turns_total', model) === 2, 'two turns counted');
    // Temporal's own worker metrics come out of the same endpoint.
    expect(first.some((s) => s.name.startsWith('temporal_workflow_task') && s.labels.task_queue === taskQueue)).toBe(true);
    expect(first.some((s) => s.name.startsWith('temporal_activity_execution') && s.labels.task_queue === taskQueue)).toBe(true);
    // livecontext's, with exact numbers.
    expect(total(first, 'livecontext_turns_total', { ...model, taskQueue, workflowType: 'agentWorkflow' })).toBe(2);
    expect(total(first, 'livecontext_model_calls_total', { ...model, outcome: 'ok', provider: 'scripted' })).toBe(4);
    expect(total(first, 'livecontext_model_calls_total', { ...model, outcome: 'ModelError.Connection' })).toBe(1);
    // The tags an activity's own meter adds come with livecontext's activity metrics too.
    expect(total(first, 'livecontext_model_calls_total', { ...model, namespace: 'default', taskQueue, activityType: 'callModel' })).toBe(5);
    expect(total(first, 'livecontext_model_tokens_total', { ...model, kind: 'input' })).toBe(60);
    expect(total(first, 'livecontext_model_tokens_total', { ...model, kind: 'output' })).toBe(8);
    // The prompt cache's hit ratio, per call that reported input tokens (three here; none of it cached).
    expect(total(first, 'livecontext_model_cache_hit_ratio_count', model)).toBe(3);
    expect(total(first, 'livecontext_model_cache_hit_ratio_sum', model)).toBe(0);
    // $3 and $15 per million input and output tokens: 135 + 60 + 105 millionths of a dollar.
    expect(total(first, 'livecontext_model_cost_microusd_total', model)).toBe(300);
    expect(total(first, 'livecontext_tool_failures_total', { tool: 'boom', kind: 'error' })).toBe(1);
    expect(total(first, 'livecontext_tool_failures_total', { tool: 'typed', kind: 'bad_arguments' })).toBe(1);
    expect(total(first, 'livecontext_tool_failures_total')).toBe(2);
    expect(total(first, 'livecontext_tool_calls_total', { tool: 'record', status: 'Success' })).toBe(1);
    expect(total(first, 'livecontext_tool_calls_total', { tool: 'deploy', status: 'ApprovalRequired' })).toBe(1);
    expect(total(first, 'livecontext_tool_calls_total', { tool: 'deploy', status: 'Success' })).toBe(1);
    expect(total(first, 'livecontext_agent_blocked_total', { reason: 'approval' })).toBe(1);
    expect(total(first, 'livecontext_agent_blocked_total')).toBe(1);
    expect(total(first, 'livecontext_continue_as_new_total')).toBe(0);
    // Approved and answered: the gauge moves the agent back to waiting for input.
    const resting = await scrapeUntil(
      firstPort,
      (s) => agentsIn(s, 'WaitingApproval') === 0 && agentsIn(s, 'WaitingInput') === 1,
      'the gauge to show the agent waiting for input',
    );
    expect(agentsIn(resting, 'BlockedOnError') + agentsIn(resting, 'Working')).toBe(0);

    // A crash; the next worker keeps no workflow cache, so each of its workflow tasks replays the whole
    // history (turns 1 and 2, then what it did of turn 3 so far) before it runs.
    await workers[0]!.kill('SIGKILL');
    const secondPort = await freePort();
    workers.push(await startChildWorker(workerEnv(secondPort, true)));
    expect(await agents.ask(agentId, 'hello again')).toMatchObject({ status: 'answered' });
    await agents.reset(agentId);
    const second = await scrapeUntil(secondPort, (s) => total(s, 'livecontext_continue_as_new_total') === 1, 'the reset counted');
    expect(total(second, 'livecontext_continue_as_new_total', { cause: 'reset' })).toBe(1);
    // Only turn 3 is this worker's: the replayed turns, blocks and tool runs are not counted again.
    expect(total(second, 'livecontext_turns_total', model)).toBe(1);
    expect(total(second, 'livecontext_agent_blocked_total')).toBe(0);
    expect(total(second, 'livecontext_tool_calls_total')).toBe(0);
    expect(total(second, 'livecontext_model_calls_total', model)).toBe(1);
    // And it did replay, on every task: no cache hit, several workflow tasks.
    expect(total(second, 'temporal_sticky_cache_hit_total', { task_queue: taskQueue })).toBe(0);
    expect(total(second, 'temporal_workflow_task_replay_latency_count', { task_queue: taskQueue })).toBeGreaterThanOrEqual(3);

    // An agent stopped by its budget after one model call: blocked on an error, by the error's code.
    const limited = uniqueId('limited');
    await agents.start(limited, { model: 'scripted:loop', budgets: { turnModelCalls: 1 } });
    const { inputSeq } = await agents.send(limited, 'go');
    expect(await agents.waitForAnswer(limited, inputSeq)).toMatchObject({ status: 'error', error: { code: 'Budget.TurnModelCalls' } });
    const third = await scrapeUntil(secondPort, (s) => agentsIn(s, 'BlockedOnError') === 1, 'the gauge to show one agent blocked on an error');
    expect(total(third, 'livecontext_agent_blocked_total', { reason: 'error', error: 'Budget.TurnModelCalls' })).toBe(1);
    expect(total(third, 'livecontext_agent_blocked_total')).toBe(1);
    expect(total(third, 'livecontext_turns_total', { model: 'scripted:loop' })).toBe(0); // not finished
    await agents.stop(limited);
  } finally {
    await connection.close();
  }
});
