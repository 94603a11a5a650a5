/**
 * Event streams and clients that never read (issue 26: 30 such clients took a gateway from 114 to 366
 * MB). Each stream makes events only as its connection takes them: with clients that read nothing, what
 * the gateway holds per stream (its queue and Node's socket buffer) stays under the bound while the
 * history is many times larger; a client that then reads gets the whole history, in order, nothing lost.
 */
import net from 'node:net';
import type { SseStreamInfo } from '../../gateway/events/sse';
import { type RunningGateway, serveGateway } from '../../gateway/serve-gateway';
import { connectTest, eventually, type TestContext, uniqueId } from '../support/temporal';
import { type BackgroundWorker, startBackgroundWorker } from './rest-support';

const BUFFER = 64 * 1024;
const TEXT = 150 * 1024; // each input (and its echo): one frame of about this size
const INPUTS = 30;
const CLIENTS = 8;

let t: TestContext;
let worker: BackgroundWorker;
let gw: RunningGateway;
const watch = new Set<SseStreamInfo>();
const sockets: net.Socket[] = [];
beforeAll(async () => {
  t = await connectTest(uniqueId('backpressure'));
  worker = await startBackgroundWorker(t.agents.taskQueue, t.agents);
  gw = await serveGateway({ agents: t.agents, tokens: [], port: 0, log: () => {}, streamWatch: watch, sseBufferBytes: BUFFER });
});
afterAll(async () => {
  for (const s of sockets) s.destroy();
  await gw?.close();
  await worker?.stop();
  await t?.close();
});

/** A client that asks for the stream and then never reads a byte. */
function silentClient(path: string): net.Socket {
  const socket = net.connect(gw.port, '127.0.0.1');
  socket.write(`GET ${path} HTTP/1.1\r\nHost: 127.0.0.1:${gw.port}\r\nAccept: text/event-stream\r\n\r\n`);
  socket.pause();
  sockets.push(socket);
  return socket;
}

test('clients that never read hold the gateway to its bound; one that reads later gets everything', async () => {
  const agentId = uniqueId('long');
  await t.agents.start(agentId, { model: 'scripted:echo' });
  for (let i = 1; i <= INPUTS; i++) await t.agents.ask(agentId, `#${i} ${String(i % 10).repeat(TEXT)}`);
  const historyBytes = INPUTS * 2 * TEXT;

  const clients = Array.from({ length: CLIENTS }, () => silentClient(`/agents/${agentId}/events?after=0`));
  // Every stream fills what it may and then waits for its client: nothing more is made or read from the agent.
  const streams = await eventually(
    () => {
      const open = [...watch];
      return open.length === CLIENTS && open.every((s) => s.waitingForClient()) ? open : undefined;
    },
    120_000,
    'every stream to wait for its client',
  );
  for (const s of streams) {
    // What it holds: its own queue (at most BUFFER, plus the frame that crossed it) and Node's socket buffer.
    expect(s.queuedBytes()).toBeLessThanOrEqual(BUFFER + 2 * (TEXT + 4096));
    // What it made at all: far less than the history (the rest is in the kernel's socket buffers at most).
    expect(s.sentBytes).toBeLessThan(historyBytes * 0.8);
  }

  // The first client reads now: the whole history arrives, in order.
  const reader = clients[0];
  let text = '';
  reader.setEncoding('utf8');
  reader.on('data', (chunk: string) => (text += chunk));
  reader.resume();
  await eventually(() => text.includes(`echo: #${INPUTS} `), 120_000, 'the last answer to arrive');
  const numbers = [...text.matchAll(/"delta":"(?:echo: )?#(\d+) /g)].map((m) => Number(m[1]));
  expect(numbers).toEqual(Array.from({ length: INPUTS }, (_, i) => [i + 1, i + 1]).flat());
  // The others still wait, still bounded.
  for (const s of watch) expect(s.queuedBytes()).toBeLessThanOrEqual(BUFFER + 2 * (TEXT + 4096));
}, 300_000);
