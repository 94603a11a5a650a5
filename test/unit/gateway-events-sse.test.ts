/**
 * The SSE framing of the event streams: `id: <cursor>` then @ag-ui/encoder's `data:` frame; a comment
 * keeps a quiet stream open; the events stop being made when the client goes away.
 */
import { EventType } from '@ag-ui/core';
import { Hono } from 'hono';
import { cursorAt } from '../../gateway/events/cursor';
import type { Emitted } from '../../gateway/events/derive-events';
import { sseResponse } from '../../gateway/events/sse';

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
  app.get('/s', (c) => sseResponse(c, events, () => {}, 60));
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
