/**
 * The SSE framing of the event streams: `id: <cursor>` then @ag-ui/encoder's `data:` frame; a comment
 * keeps a quiet stream open; the events stop being made when the client goes away.
 */
import { EventType } from '@ag-ui/core';
import { Hono } from 'hono';
import { cursorAt } from '../../gateway/events/cursor';
import type { Emitted } from '../../gateway/events/derive-events';
import { type SseStreamInfo, sseResponse } from '../../gateway/events/sse';

const sleep = (ms: number) => new Promise((r) => setTimeout(r, ms));

test('frames carry the cursor as id and the encoded event; quiet streams get keep-alive comments; a client that leaves stops the events', async () => {
  let stopped = false;
  let made = 0;
  async function* events(signal: AbortSignal): AsyncGenerator<Emitted> {
    signal.addEventListener('abort', () => (stopped = true));
    for (let i = 1; !signal.aborted; i++) {
      made++;
      yield { event: { type: EventType.CUSTOM, name: 'tick', value: i }, cursor: { ...cursorAt(i), run: { runId: 'turn-1', errored: false } } };
      await sleep(i === 1 ? 250 : 20);
    }
  }
  const app = new Hono();
  app.get('/s', (c) => sseResponse(c, events, { log: () => {}, keepAliveMs: 60 }));
  const res = await app.request('/s');
  expect(res.headers.get('content-type')).toBe('text/event-stream');
  const reader = res.body!.getReader();
  let text = '';
  while (!text.includes('"value":2')) text += new TextDecoder().decode((await reader.read()).value);
  expect(text.startsWith('id: 1~tturn-1\ndata: {"type":"CUSTOM","name":"tick","value":1}\n\n')).toBe(true);
  expect(text).toContain(': keep-alive\n\n'); // 250 ms without an event, with keep-alive every 60 ms
  await reader.cancel();
  await sleep(100);
  expect(stopped).toBe(true);
  const count = made;
  await sleep(100);
  expect(made).toBe(count);
});

/** Events of `size` characters each, numbered, for as long as they are asked for. */
function endless(size: number, counter: { made: number }) {
  return async function* (signal: AbortSignal): AsyncGenerator<Emitted> {
    for (let i = 1; !signal.aborted; i++) {
      counter.made = i;
      yield { event: { type: EventType.CUSTOM, name: 'big', value: `${i}:${'x'.repeat(size)}` }, cursor: cursorAt(i) };
    }
  };
}

async function until(check: () => boolean): Promise<void> {
  while (!check()) await sleep(5);
}

test('a client that does not read: events are made only up to the buffer, and all of them arrive once it reads', async () => {
  const counter = { made: 0 };
  const watch = new Set<SseStreamInfo>();
  const bufferBytes = 64 * 1024;
  const app = new Hono();
  app.get('/s', (c) => sseResponse(c, endless(10_000, counter), { log: () => {}, watch, bufferBytes }));
  const res = await app.request('/s');
  const [info] = [...watch];
  // Nobody reads: the stream fills its buffer and then waits for the client, making nothing more.
  await until(() => info.waitingForClient());
  const madeWhenFull = counter.made;
  expect(info.queuedBytes()).toBeLessThanOrEqual(bufferBytes + 10_100);
  expect(info.sentBytes).toBeLessThanOrEqual(bufferBytes + 10_100);
  expect(madeWhenFull).toBeLessThanOrEqual(Math.ceil(bufferBytes / 10_000) + 1);
  // Without a read, another look finds the same: nothing was made meanwhile (the producer awaits a pull).
  await new Promise((r) => setImmediate(r));
  expect(counter.made).toBe(madeWhenFull);
  // It reads: every event, in order, none lost.
  const reader = res.body!.getReader();
  let text = '';
  while (!text.includes(`"value":"${madeWhenFull + 20}:`)) text += new TextDecoder().decode((await reader.read()).value);
  const numbers = [...text.matchAll(/"value":"(\d+):/g)].map((m) => Number(m[1]));
  expect(numbers.slice(0, madeWhenFull + 20)).toEqual(Array.from({ length: madeWhenFull + 20 }, (_, i) => i + 1));
  await reader.cancel();
  await until(() => watch.size === 0);
});

test('a client that stays behind past the stall limit is disconnected, with a log line', async () => {
  const counter = { made: 0 };
  const watch = new Set<SseStreamInfo>();
  const logs: string[] = [];
  const app = new Hono();
  app.get('/s', (c) => sseResponse(c, endless(10_000, counter), { log: (m) => logs.push(m), watch, bufferBytes: 32 * 1024, stallMs: 50 }));
  const res = await app.request('/s');
  await until(() => watch.size === 0); // let go
  expect(logs).toEqual([expect.stringMatching(/^gateway: event stream \/s: the client read nothing for 0 s with \d+ bytes waiting; disconnected/)]);
  const reader = res.body!.getReader();
  // What was queued can still be read, then the stream fails: the client sees it end and resumes.
  await expect(
    (async () => {
      for (;;) if ((await reader.read()).done) return 'ended';
    })(),
  ).rejects.toThrow(/read nothing/);
});
