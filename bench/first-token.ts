/**
 * firstToken: how long after its input a client of the gateway sees the answer's first text, beside when
 * the provider itself emitted that text, in the same turn. A paced model (bench/paced-model.ts, 20 words a
 * second) stands for the provider and says when its first word goes out; a gateway (`serveGateway`, the
 * in-process worker's stream endpoint on, as `livecontext dev` runs it) serves the client over HTTP.
 *
 * Both times are taken in this one process on one clock (performance.now()) from the same moment, just
 * before the input leaves the client: "provider" is when the model yields its first word, "gateway" when
 * the client has read the first TEXT_MESSAGE_CONTENT frame off the socket. Their difference is what we add.
 *
 * Two doors: GET /agents/:id/events (one stream held open across turns, the input sent by AgentClient.ask
 * the moment the turn starts) and POST /agents/:id/ag-ui (one AG-UI run per turn; the POST is the input).
 * Two providers: one whose first token takes 400 ms (a hosted LLM's usual 0.3–1 s) and one that answers at
 * once (the hardest case: nothing of ours can happen while the provider thinks).
 */
import { randomUUID } from 'node:crypto';
import { EventType as AgUi } from '@ag-ui/core';
import { StreamChannel } from '../activities/stream-channel/stream-server';
import { AgentClient } from '../client/agent-client';
import { serveGateway } from '../gateway/serve-gateway';
import { createLivecontextWorker } from '../worker/create-worker';
import { pacedFirstTokenListeners, pacedModels } from './paced-model';
import { type Bench, type BenchResult, type Row, percentile, progress, ratio, round, uniqueId } from './support';

const PROVIDERS = [
  { name: 'first token after 400 ms', model: 'paced:1s+400ms' },
  { name: 'first token at once', model: 'paced:1s' },
] as const;
type Door = 'events' | 'ag-ui';
const DOORS: Door[] = ['events', 'ag-ui'];
const TURNS = 10;

interface Sample {
  /** Input → the provider's first token (ms). */
  provider: number;
  /** Input → the client's first TEXT_MESSAGE_CONTENT (ms). */
  gateway: number;
}

export async function firstToken(bench: Bench): Promise<BenchResult> {
  const turns = Number(bench.options?.turns ?? TURNS);
  const taskQueue = uniqueId('ft');
  const agents = new AgentClient(bench.client, taskQueue);
  const channel = await StreamChannel.start();
  const worker = await createLivecontextWorker({
    connection: bench.native,
    taskQueue,
    models: [pacedModels],
    workflowBundle: bench.livecontextBundle,
    workspaceRoot: bench.workspaceRoot,
    streamChannel: channel,
    tracing: false,
  });
  const gateway = await serveGateway({ agents, tokens: [], port: 0, host: '127.0.0.1', log: () => {} });
  const firstTokens = new Map<string, number>();
  const told = (agentId: string, at: number) => void (firstTokens.has(agentId) || firstTokens.set(agentId, at));
  pacedFirstTokenListeners.add(told);
  const samples: Record<string, Sample[]> = {};
  try {
    await worker.runUntil(async () => {
      for (const provider of PROVIDERS) {
        for (const door of DOORS) {
          const agentId = uniqueId('ft');
          await agents.start(agentId, { model: provider.model });
          await agents.ask(agentId, 'warm up'); // the workflow's start is not a turn
          const measured = (samples[`${provider.model}/${door}`] = [] as Sample[]);
          const turn = door === 'events' ? await eventsDoor(gateway.url, agents, agentId) : agUiDoor(gateway.url, agentId);
          try {
            for (let i = 0; i < turns; i++) {
              progress(`firstToken: ${provider.name}, ${door}, turn ${i + 1}/${turns}`);
              firstTokens.delete(agentId);
              const { sentAt, firstTextAt } = await turn.run();
              const providerAt = firstTokens.get(agentId);
              if (providerAt === undefined) throw new Error('the paced model never said when its first token went out');
              measured.push({ provider: providerAt - sentAt, gateway: firstTextAt - sentAt });
            }
          } finally {
            await turn.close();
          }
        }
      }
    });
  } finally {
    pacedFirstTokenListeners.delete(told);
    await gateway.close();
    await channel.close();
  }

  const rows: Row[] = [];
  const figures: Record<string, unknown> = {};
  for (const provider of PROVIDERS) {
    for (const door of DOORS) {
      const s = samples[`${provider.model}/${door}`];
      const p = (values: number[], q: number) => round(percentile(values, q));
      const gw = s.map((x) => x.gateway);
      const pr = s.map((x) => x.provider);
      const added = s.map((x) => x.gateway - x.provider);
      figures[`${provider.model}/${door}`] = {
        gatewayP50Ms: p(gw, 50),
        providerP50Ms: p(pr, 50),
        addedP50Ms: p(added, 50),
        addedP90Ms: p(added, 90),
        addedMaxMs: p(added, 100),
        samples: s.map((x) => ({ provider: round(x.provider), gateway: round(x.gateway) })),
      };
      const route = door === 'events' ? 'GET /agents/:id/events' : 'POST /agents/:id/ag-ui';
      rows.push({
        figure: `input→first TEXT_MESSAGE_CONTENT p50 (ms), ${route}, ${provider.name} (baseline: the provider's own first token)`,
        livecontext: p(gw, 50),
        baseline: p(pr, 50),
        ratio: ratio(p(gw, 50), p(pr, 50)),
      });
      rows.push({
        figure: `  added by livecontext p50 | p90 | max (ms): ${p(added, 50)} | ${p(added, 90)} | ${p(added, 100)}`,
        livecontext: null,
        baseline: null,
      });
    }
  }
  return {
    figures: {
      method: `per turn, after a warm-up turn: from just before the input leaves the client to the paced model yielding its first word (provider) and to the client reading the first TEXT_MESSAGE_CONTENT SSE frame from the gateway (gateway), one clock in one process; ${turns} turns per row, nearest-rank percentiles; the worker's stream endpoint on`,
      workload: `paced model, 20 words/s, 1 s answers: ${PROVIDERS.map((p) => `${p.model} (${p.name})`).join(', ')}; events: one GET /agents/:id/events stream held across turns, input by AgentClient.ask; ag-ui: one POST /agents/:id/ag-ui run per turn`,
      ...figures,
    },
    rows,
  };
}

interface TurnDriver {
  /** One turn: its input's sending time and when the client read the first text (performance.now()). */
  run(): Promise<{ sentAt: number; firstTextAt: number }>;
  close(): Promise<void>;
}

/** One events stream held open; each turn's input goes through AgentClient.ask. */
async function eventsDoor(url: string, agents: AgentClient, agentId: string): Promise<TurnDriver> {
  const stop = new AbortController();
  const res = await fetch(`${url}/agents/${encodeURIComponent(agentId)}/events`, { headers: { accept: 'text/event-stream' }, signal: stop.signal });
  if (!res.ok || !res.body) throw new Error(`GET /events answered ${res.status}`);
  let waiter: ((at: number) => void) | undefined;
  let finished: (() => void) | undefined;
  let snapshot!: () => void;
  const ready = new Promise<void>((r) => (snapshot = r));
  const reading = readEvents(res.body, (type, at) => {
    if (type === AgUi.STATE_SNAPSHOT) snapshot();
    if (type === AgUi.TEXT_MESSAGE_CONTENT && waiter) {
      waiter(at);
      waiter = undefined;
    }
    if (type === AgUi.RUN_FINISHED) finished?.();
  }).catch(() => {});
  await ready; // the stream has started: a turn from now on is followed
  return {
    async run() {
      const first = new Promise<number>((r) => (waiter = r));
      // The turn's run ends on the stream before the next turn starts, so no late frame of it counts for the next.
      const ended = new Promise<void>((r) => (finished = r));
      const sentAt = performance.now();
      const outcome = await agents.ask(agentId, 'tell me');
      if (outcome.status !== 'answered') throw new Error(`the turn ended ${outcome.status}`);
      const firstTextAt = await withTimeout(first, 10_000, 'no TEXT_MESSAGE_CONTENT within 10 s of the answer');
      await withTimeout(ended, 10_000, 'no RUN_FINISHED within 10 s of the answer');
      return { sentAt, firstTextAt };
    },
    async close() {
      stop.abort();
      await reading;
    },
  };
}

/** One AG-UI run per turn: the POST sends the input and streams its run until RUN_FINISHED. */
function agUiDoor(url: string, agentId: string): TurnDriver {
  return {
    async run() {
      const body = {
        threadId: agentId,
        runId: randomUUID(),
        messages: [{ id: randomUUID(), role: 'user', content: 'tell me' }],
        tools: [],
        context: [],
        state: {},
        forwardedProps: {},
      };
      const sentAt = performance.now();
      const res = await fetch(`${url}/agents/${encodeURIComponent(agentId)}/ag-ui`, {
        method: 'POST',
        headers: { 'content-type': 'application/json', accept: 'text/event-stream' },
        body: JSON.stringify(body),
      });
      if (!res.ok || !res.body) throw new Error(`POST /ag-ui answered ${res.status}`);
      let firstTextAt: number | undefined;
      let finished = false;
      await readEvents(res.body, (type, at) => {
        if (type === AgUi.TEXT_MESSAGE_CONTENT) firstTextAt ??= at;
        if (type === AgUi.RUN_FINISHED) finished = true;
        if (type === AgUi.RUN_ERROR) throw new Error('the run ended with RUN_ERROR');
      });
      if (!finished || firstTextAt === undefined) throw new Error('the AG-UI run ended without its text');
      return { sentAt, firstTextAt };
    },
    async close() {},
  };
}

/**
 * Reads SSE frames, telling each event's type and when its frame was read. The text of the user's own
 * input (a user TEXT_MESSAGE_START's content) is not the answer's: it is told as USER_TEXT.
 */
async function readEvents(body: ReadableStream<Uint8Array>, seen: (type: string, at: number) => void): Promise<void> {
  const decoder = new TextDecoder();
  const userMessages = new Set<string>();
  let buffered = '';
  for await (const chunk of body as unknown as AsyncIterable<Uint8Array>) {
    const at = performance.now();
    buffered += decoder.decode(chunk, { stream: true });
    let end: number;
    while ((end = buffered.indexOf('\n\n')) >= 0) {
      const frame = buffered.slice(0, end);
      buffered = buffered.slice(end + 2);
      const data = /^data: (.*)$/m.exec(frame)?.[1];
      if (!data) continue;
      const event = JSON.parse(data) as { type: string; role?: string; messageId?: string };
      if (event.type === AgUi.TEXT_MESSAGE_START && event.role !== 'assistant') userMessages.add(event.messageId ?? '');
      seen(event.type === AgUi.TEXT_MESSAGE_CONTENT && userMessages.has(event.messageId ?? '') ? 'USER_TEXT' : event.type, at);
    }
  }
}

function withTimeout<T>(p: Promise<T>, ms: number, message: string): Promise<T> {
  let timer: NodeJS.Timeout | undefined;
  return Promise.race([p, new Promise<never>((_, reject) => (timer = setTimeout(() => reject(new Error(message)), ms)))]).finally(() => clearTimeout(timer));
}
