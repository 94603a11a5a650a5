/**
 * Streaming over the worker's stream endpoint (activities/stream-channel): the gateway's AG-UI events and
 * the chat show a paced answer's text as it forms while the call sends only liveness heartbeats, a
 * reader ends with the same text as history, and an endpoint readers cannot reach only makes streaming
 * coarser (the heartbeat's partial output), never loses the answer. A call names its stream before its
 * first token, and the gateway passes each published token on as it comes (not at its next look).
 */
import { PassThrough } from 'node:stream';
import readline from 'node:readline';
import type { Context } from '@temporalio/activity';
import { DeltaSequencer, type MessageDelta } from '../../agent/index';
import { BaseModel } from '../../activities/models/base-model';
import type { ModelProvider } from '../../activities/models/model-router';
import { pacedAnswer, pacedModels } from '../../bench/paced-model';
import { AgentFollower } from '../../cli/turn-view';
import { ChatScreen } from '../../cli/chat-screen';
import { StreamChannel } from '../../activities/stream-channel/stream-server';
import { type TestGateway, startTestGateway } from '../support/gateway';
import { type SseFrame, collectSse } from '../support/sse-reader';
import { type TestContext, connectTest, uniqueId, withWorker } from '../support/temporal';

const taskQueue = uniqueId('stream-channel');
let t: TestContext;
let gateway: TestGateway;
const secretBefore = process.env.LIVECONTEXT_STREAM_SECRET;
beforeAll(async () => {
  process.env.LIVECONTEXT_STREAM_SECRET = `test-${uniqueId('secret')}`;
  t = await connectTest(taskQueue);
  gateway = await startTestGateway(t.agents);
});
afterAll(async () => {
  await gateway?.close();
  await t?.close();
  if (secretBefore === undefined) delete process.env.LIVECONTEXT_STREAM_SECRET;
  else process.env.LIVECONTEXT_STREAM_SECRET = secretBefore;
});

/** Counts the heartbeats callModel asks for (the SDK may merge some, never add any: an upper bound of what the server records). */
function heartbeatCounter() {
  const counts: number[] = [];
  const interceptor = (ctx: Context) => {
    if (ctx.info.activityType !== 'callModel') return {};
    const index = counts.push(0) - 1;
    const beat = ctx.heartbeat;
    (ctx as { heartbeat: (d?: unknown) => void }).heartbeat = (details?: unknown) => {
      counts[index]++;
      beat(details);
    };
    return {};
  };
  return { counts, workerOptions: { interceptors: { activity: [interceptor] } } };
}

/** The content frames of the last text message (the answer; the input is a text message too). */
const answerContent = (frames: SseFrame[]) => {
  const all = frames.filter((f) => f.event.type === 'TEXT_MESSAGE_CONTENT');
  return all.filter((f) => f.event.messageId === all.at(-1)?.event.messageId);
};

test('the AG-UI events stream a paced answer from the stream endpoint, with liveness heartbeats only', async () => {
  const agentId = uniqueId('sc-events');
  const beats = heartbeatCounter();
  await withWorker({ taskQueue, models: [pacedModels], workerOptions: beats.workerOptions }, async () => {
    await t.agents.start(agentId, { model: 'paced:3s' });
    const seen: SseFrame[] = [];
    const live = collectSse(`${gateway.url}/agents/${agentId}/events`, {}, (f, all) => (seen.splice(0, seen.length, ...all), f.event.type === 'RUN_FINISHED'));
    while (seen.length === 0) await new Promise((r) => setTimeout(r, 25));
    expect(await gateway.request('POST', `/agents/${agentId}/input`, { text: 'talk' })).toMatchObject({ status: 202 });
    const { frames, error } = await live;
    expect(error).toBeUndefined();

    const answer = pacedAnswer(3, 0);
    const content = answerContent(frames);
    // 60 words over 3 s, polled every 200 ms: many visible steps, while the call heartbeat at most
    // twice (at its start, and perhaps once for liveness): the text came from the endpoint.
    expect(content.length).toBeGreaterThanOrEqual(6);
    expect(beats.counts).toHaveLength(1);
    expect(beats.counts[0]).toBeLessThanOrEqual(3);
    expect(content.map((f) => f.event.delta).join('')).toBe(answer);
    // Text was shown before the answer entered history (the frames before the text's end are partial ones).
    const ended = frames.findIndex((f) => f.event.type === 'TEXT_MESSAGE_END' && f.event.messageId === content[0].event.messageId);
    expect(content.filter((f) => frames.indexOf(f) < ended).length).toBeGreaterThanOrEqual(6);
    expect(content[0].at).toBeLessThan(frames[ended].at - 1000);
    const history = await t.agents.history(agentId);
    expect(history.at(-1)).toMatchObject({ kind: 'model_output', contents: [answer] });
  });
});

test('heartbeats per answer stay the same from a 1-second to a 6-second answer over the endpoint; the heartbeat path grows', async () => {
  const channel = heartbeatCounter();
  const heartbeats = heartbeatCounter();
  await withWorker({ taskQueue, models: [pacedModels], workerOptions: channel.workerOptions }, async () => {
    for (const model of ['paced:1s', 'paced:6s']) {
      const agentId = uniqueId('sc-count');
      await t.agents.start(agentId, { model });
      expect(await t.agents.ask(agentId, 'go')).toMatchObject({ status: 'answered' });
    }
  });
  await withWorker({ taskQueue, models: [pacedModels], workerOptions: heartbeats.workerOptions, streamChannel: false }, async () => {
    const agentId = uniqueId('sc-count-hb');
    await t.agents.start(agentId, { model: 'paced:6s' });
    expect(await t.agents.ask(agentId, 'go')).toMatchObject({ status: 'answered' });
  });
  const [short, long] = channel.counts;
  // Liveness every 0.6 × the 10 s heartbeat timeout: the first heartbeat, perhaps one more.
  expect(short).toBeLessThanOrEqual(2);
  expect(long).toBeLessThanOrEqual(2);
  // The heartbeat path asks for one per 100 ms of streaming (the SDK sends one per 250 ms).
  expect(heartbeats.counts[0]).toBeGreaterThan(30);
});

test('the chat shows streamed text before the turn ends, and ends with the text history holds', async () => {
  const agentId = uniqueId('sc-chat');
  await withWorker({ taskQueue, models: [pacedModels] }, async () => {
    const initial = await t.agents.start(agentId, { model: 'paced:3s' }).then(() => t.agents.state(agentId));
    const input = new PassThrough();
    const out = new PassThrough();
    const writes: Array<{ text: string; at: number }> = [];
    out.on('data', (chunk: Buffer) => writes.push({ text: chunk.toString(), at: Date.now() }));
    const rl = readline.createInterface({ input, output: out, terminal: false });
    const follower = new AgentFollower({ agents: t.agents, agentId, screen: new ChatScreen(rl, out), initial, typedHere: async () => true, busy: () => false });
    follower.start();
    try {
      const { inputSeq } = await t.agents.send(agentId, 'talk');
      const outcome = await t.agents.waitForAnswer(agentId, inputSeq);
      const answeredAt = Date.now();
      const answer = pacedAnswer(3, 0);
      expect(outcome).toMatchObject({ status: 'answered', answer: { contents: [answer] } });
      const early = writes.filter((w) => w.at < answeredAt - 500 && /w0\.\d/.test(w.text));
      expect(early.length).toBeGreaterThanOrEqual(5);
      await new Promise((r) => setTimeout(r, 600)); // the follower's next look
      expect(writes.map((w) => w.text).join('')).toContain(answer);
    } finally {
      await follower.stop();
      rl.close();
    }
  });
});

test('an endpoint readers cannot reach degrades to the heartbeat partial output; the answer is whole', async () => {
  // The worker advertises an address nobody listens on (as a gateway that cannot route to the worker would see).
  const unreachable = await StreamChannel.start({ advertise: 'http://127.0.0.1:9' });
  const agentId = uniqueId('sc-down');
  try {
    await withWorker({ taskQueue, models: [pacedModels], streamChannel: unreachable }, async () => {
      await t.agents.start(agentId, { model: 'paced:8s' });
      const { inputSeq } = await t.agents.send(agentId, 'go');
      const texts: string[] = [];
      const stop = new AbortController();
      const watching = (async () => {
        for await (const p of t.agents.streamPartial(agentId, { intervalMs: 200, signal: stop.signal })) if (p.text) texts.push(p.text);
      })();
      const outcome = await t.agents.waitForAnswer(agentId, inputSeq);
      stop.abort();
      await watching;
      const answer = pacedAnswer(8, 0);
      expect(outcome).toMatchObject({ status: 'answered', answer: { contents: [answer] } });
      // The liveness heartbeat at ~6 s carried the text so far: coarse, but a continuation of the answer.
      expect(texts.length).toBeGreaterThanOrEqual(1);
      for (const text of texts) expect(answer.startsWith(text)).toBe(true);
    });
  } finally {
    await unreachable.close();
  }
});

/** A model held by the test: it names no text until `first` is released, then one word until `rest` is. */
function gatedModels() {
  let releaseFirst!: () => void;
  let releaseRest!: () => void;
  const first = new Promise<void>((r) => (releaseFirst = r));
  const rest = new Promise<void>((r) => (releaseRest = r));
  class GatedModel extends BaseModel {
    constructor() {
      super('gated', 'gated', 'held');
    }
    async *stream(): AsyncIterable<MessageDelta> {
      const d = new DeltaSequencer();
      yield d.next({ kind: 'start', modelId: 'held' });
      await first;
      yield d.next({ kind: 'text', text: 'first' });
      await rest;
      yield d.next({ kind: 'text', text: ' and the rest' });
      yield d.next({ kind: 'usage', usage: { inputTokens: 1, outputTokens: 4, totalTokens: 5 } });
      yield d.next({ kind: 'done', finishReason: 'stop' });
    }
  }
  const provider: ModelProvider = { id: 'gated', create: () => new GatedModel() };
  return { provider, releaseFirst, releaseRest };
}

test('a call names its stream before its first token, and the events stream passes that token on as it is published', async () => {
  const agentId = uniqueId('sc-first');
  const gated = gatedModels();
  await withWorker({ taskQueue, models: [gated.provider] }, async () => {
    await t.agents.start(agentId, { model: 'gated:held' });
    const seen: SseFrame[] = [];
    const live = collectSse(`${gateway.url}/agents/${agentId}/events`, {}, (f, all) => (seen.splice(0, seen.length, ...all), f.event.type === 'RUN_FINISHED'));
    while (seen.length === 0) await new Promise((r) => setTimeout(r, 25));
    expect(await gateway.request('POST', `/agents/${agentId}/input`, { text: 'talk' })).toMatchObject({ status: 202 });
    // While the provider has produced nothing, the call's heartbeat already says where it will stream.
    let named = await t.agents.partialOutput(agentId);
    while (!named?.channel) {
      await new Promise((r) => setTimeout(r, 25));
      named = await t.agents.partialOutput(agentId);
    }
    expect(named.text).toBe('');
    gated.releaseFirst();
    // The first word reaches the client while the call is still held after it: from the endpoint, not history.
    const firstWord = () => seen.find((f) => f.event.type === 'TEXT_MESSAGE_CONTENT' && f.event.delta === 'first');
    while (!firstWord()) await new Promise((r) => setTimeout(r, 25));
    expect(seen.some((f) => f.event.type === 'TEXT_MESSAGE_END' && f.event.messageId === firstWord()!.event.messageId)).toBe(false);
    gated.releaseRest();
    const { frames, error } = await live;
    expect(error).toBeUndefined();
    expect(
      answerContent(frames)
        .map((f) => f.event.delta)
        .join(''),
    ).toBe('first and the rest');
  });
});
