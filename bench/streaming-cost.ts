/**
 * streamingCost: what a turn costs in Temporal Cloud's billable actions once heartbeats and queries are
 * counted, for a short answer and a 20-second streamed answer (bench/paced-model.ts, 20 words a second),
 * on both streaming paths: partial output in heartbeats (`streamChannel: false`) and over the worker's
 * stream endpoint (the default, activities/stream-channel).
 *
 * Counted as the server sees them: this benchmark runs its own dev server with a Prometheus endpoint and
 * reads the frontend's request counters around each turn — `RecordActivityTaskHeartbeat` (the heartbeats
 * the worker's SDK actually sent, after its throttling) and `QueryWorkflow` (the worker's `entries` query,
 * the client's queries, a reader's). History actions are the turn's billable events (events-per-turn.ts).
 * Describe calls (how readers find the running call) are not billable and not counted.
 *
 * Each turn is read by one reader, as people watch it: a text follower (AgentClient.streamPartial, what
 * the chat does for text) or a gateway AG-UI events stream (gateway/events, which also polls the agent's
 * history and state).
 */
import { Client, Connection } from '@temporalio/client';
import { TestWorkflowEnvironment } from '@temporalio/testing';
import { NativeConnection } from '@temporalio/worker';
import { EventType as AgUi } from '@ag-ui/core';
import { StreamChannel } from '../activities/stream-channel/stream-server';
import { AgentClient } from '../client/agent-client';
import { livecontextDataConverter } from '../common/codec/data-converter';
import { freePort } from '../common/ports';
import { agentEvents } from '../gateway/events/agent-event-stream';
import { createLivecontextWorker } from '../worker/create-worker';
import { SEARCH_ATTRIBUTES } from '../workflows/messages';
import { isAction } from './events-per-turn';
import { pacedModels } from './paced-model';
import { type Bench, type BenchResult, type Row, progress, round, uniqueId } from './support';

type Reader = 'text' | 'events';
interface TurnCost {
  heartbeats: number;
  queries: number;
  historyActions: number;
  total: number;
  /** Text updates the reader saw before the answer (how live it looked). */
  updates: number;
}

const ANSWERS = [
  { name: 'short', model: 'paced:0.1s', turns: 3 },
  { name: '20-second', model: 'paced:20s', turns: 1 },
] as const;

export async function streamingCost(bench: Bench): Promise<BenchResult> {
  const metricsPort = await freePort();
  const cli = process.env.TEMPORAL_CLI_PATH;
  progress('streamingCost: its own dev server, with the server metrics it counts by');
  const env = await TestWorkflowEnvironment.createLocal({
    server: {
      ...(cli ? { executable: { type: 'existing-path' as const, path: cli } } : {}),
      extraArgs: ['--log-level', 'error', '--metrics-port', String(metricsPort)],
      searchAttributes: SEARCH_ATTRIBUTES,
    },
  });
  const native = await NativeConnection.connect({ address: env.address });
  const connection = await Connection.connect({ address: env.address });
  const client = new Client({ connection, dataConverter: livecontextDataConverter() });
  const counters = () => frontendCounters(metricsPort);
  const figures: Record<string, Record<string, TurnCost>> = {};
  try {
    for (const path of ['heartbeat', 'channel'] as const) {
      const taskQueue = uniqueId(`sc-${path}`);
      const agents = new AgentClient(client, taskQueue);
      const channel = path === 'channel' ? await StreamChannel.start() : undefined;
      const worker = await createLivecontextWorker({
        connection: native,
        taskQueue,
        models: [pacedModels],
        workflowBundle: bench.livecontextBundle,
        workspaceRoot: bench.workspaceRoot,
        streamChannel: channel ?? false,
        tracing: false,
      });
      try {
        await worker.runUntil(async () => {
          for (const answer of ANSWERS) {
            for (const reader of ['text', 'events'] as const) {
              const agentId = uniqueId(`sc-${answer.name}`);
              await agents.start(agentId, { model: answer.model });
              await agents.ask(agentId, 'warm up'); // the workflow's start is not a turn's cost
              const costs: TurnCost[] = [];
              for (let i = 0; i < answer.turns; i++) {
                progress(`streamingCost: ${path} path, ${answer.name} answer, ${reader} reader, turn ${i + 1}/${answer.turns}`);
                costs.push(await measuredTurn(client, agents, agentId, reader, counters));
              }
              (figures[path] ??= {})[`${answer.name}/${reader}`] = average(costs);
            }
          }
        });
      } finally {
        await channel?.close();
      }
    }
  } finally {
    await native.close();
    await connection.close();
    await env.teardown();
  }
  const rows: Row[] = ANSWERS.flatMap((a) =>
    (['text', 'events'] as const).flatMap((reader) => {
      const hb = figures.heartbeat[`${a.name}/${reader}`];
      const ch = figures.channel[`${a.name}/${reader}`];
      const label = `${a.name} answer, ${reader === 'text' ? 'text follower' : 'gateway events stream'}`;
      return [
        {
          figure: `billable actions per turn, ${label} (stream endpoint | heartbeats)`,
          livecontext: ch.total,
          baseline: hb.total,
          ratio: hb.total ? round(ch.total / hb.total, 2) : null,
        },
        {
          figure: `  of which heartbeats ${ch.heartbeats} | ${hb.heartbeats}, queries ${ch.queries} | ${hb.queries}, history ${ch.historyActions} | ${hb.historyActions}; text updates seen ${ch.updates} | ${hb.updates}`,
          livecontext: null,
          baseline: null,
        },
      ];
    }),
  );
  return {
    figures: {
      method:
        'per turn (after a warm-up turn): RecordActivityTaskHeartbeat and QueryWorkflow requests counted by the dev server frontend (Prometheus service_requests), plus the billable events the turn added to history; "baseline" column = the heartbeat path (streamChannel: false), "livecontext" = the stream endpoint',
      workload: `paced model, 20 words/s: short = ${ANSWERS[0].model} (${ANSWERS[0].turns} turns averaged), 20-second = ${ANSWERS[1].model}; readers: AgentClient.streamPartial every 200 ms (text), or the gateway's agentEvents stream (history+state queries every 200 ms)`,
      ...figures,
    },
    rows,
  };
}

async function measuredTurn(client: Client, agents: AgentClient, agentId: string, reader: Reader, counters: () => Promise<Counters>): Promise<TurnCost> {
  const historyBefore = (await client.workflow.getHandle(agentId).fetchHistory()).events?.length ?? 0;
  const stop = new AbortController();
  let updates = 0;
  const before = await counters();
  const reading =
    reader === 'text'
      ? (async () => {
          for await (const p of agents.streamPartial(agentId, { intervalMs: 200, signal: stop.signal })) if (p.text) updates++;
        })()
      : (async () => {
          for await (const e of agentEvents({ agents, agentId, signal: stop.signal })) if (e.event.type === AgUi.TEXT_MESSAGE_CONTENT) updates++;
        })();
  const outcome = await agents.ask(agentId, 'tell me');
  stop.abort();
  await reading.catch(() => {});
  const after = await counters();
  if (outcome.status !== 'answered') throw new Error(`the turn ended ${outcome.status}`);
  const added = ((await client.workflow.getHandle(agentId).fetchHistory()).events ?? []).slice(historyBefore);
  const heartbeats = after.heartbeats - before.heartbeats;
  const queries = after.queries - before.queries;
  const historyActions = added.filter(isAction).length;
  return { heartbeats, queries, historyActions, total: heartbeats + queries + historyActions, updates };
}

function average(costs: TurnCost[]): TurnCost {
  const mean = (k: keyof TurnCost) => round(costs.reduce((s, c) => s + c[k], 0) / costs.length, 1);
  return { heartbeats: mean('heartbeats'), queries: mean('queries'), historyActions: mean('historyActions'), total: mean('total'), updates: mean('updates') };
}

interface Counters {
  heartbeats: number;
  queries: number;
}

/** The frontend's request counters for heartbeats and queries, from the dev server's Prometheus endpoint. */
async function frontendCounters(port: number): Promise<Counters> {
  const text = await (await fetch(`http://127.0.0.1:${port}/metrics`)).text();
  const sum = (operations: string[]) =>
    text
      .split('\n')
      .filter((l) => l.startsWith('service_requests{') && l.includes('service_name="frontend"') && operations.some((o) => l.includes(`operation="${o}"`)))
      .reduce((s, l) => s + Number(l.slice(l.lastIndexOf(' ') + 1)), 0);
  return { heartbeats: sum(['RecordActivityTaskHeartbeat', 'RecordActivityTaskHeartbeatById']), queries: sum(['QueryWorkflow']) };
}
