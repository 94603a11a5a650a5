/**
 * Cursors made up by a client (issue 26): a `Last-Event-ID` that is no position a stream can have been
 * at is a 400, and one that claims a message is streaming that the agent's model never streamed does
 * not make the gateway end a message it never started (no TEXT_MESSAGE_END without its START).
 */
import { readSse, type SseFrame } from '../support/sse-reader';
import { uniqueId } from '../support/temporal';
import { useRestGateway } from './rest-support';

const rest = useRestGateway('events-cursor');
let agentId: string;
let beforeOutput: number;
beforeAll(async () => {
  agentId = uniqueId('cursor');
  await rest.t.agents.start(agentId, { model: 'scripted:echo' });
  await rest.t.agents.ask(agentId, 'hello');
  const output = (await rest.t.agents.history(agentId)).find((e) => e.kind === 'model_output')!;
  beforeOutput = output.seq - 1;
});

/** The frames of a stream resumed at `lastEventId`, up to the end of the turn's run. */
async function resumed(lastEventId: string): Promise<SseFrame[]> {
  const abort = new AbortController();
  const frames: SseFrame[] = [];
  try {
    for await (const frame of readSse(`${rest.gw.url}/agents/${agentId}/events`, { headers: { 'last-event-id': lastEventId }, signal: abort.signal })) {
      frames.push(frame);
      if (frame.event.type === 'RUN_FINISHED') break;
    }
  } finally {
    abort.abort();
  }
  return frames;
}

/** TEXT_MESSAGE_END and _CONTENT events whose message did not start in `frames`. */
function unstarted(frames: SseFrame[]): string[] {
  const started = new Set<string>();
  const out: string[] = [];
  for (const { event } of frames) {
    if (event.type === 'TEXT_MESSAGE_START') started.add(event.messageId);
    if ((event.type === 'TEXT_MESSAGE_END' || event.type === 'TEXT_MESSAGE_CONTENT') && !started.has(event.messageId))
      out.push(`${event.type} ${event.messageId}`);
  }
  return out;
}

test('a cursor that says a message streams that never did ends no message it did not start', async () => {
  for (const made of [
    `${beforeOutput}~${beforeOutput}~made-up-call~1~3`, // a call that never ran
    `${beforeOutput}~${beforeOutput}~~1~0`, // a call without an id
    `${beforeOutput}~${beforeOutput}~made-up-call~7~0~tturn-1`, // and a run open
  ]) {
    const frames = await resumed(made);
    expect({ made, unstarted: unstarted(frames) }).toEqual({ made, unstarted: [] });
    // The answer itself is there, whole.
    const text = frames
      .filter((f) => f.event.type === 'TEXT_MESSAGE_CONTENT')
      .map((f) => f.event.delta)
      .join('');
    expect({ made, text }).toEqual({ made, text: 'echo: hello' });
  }
  // An honest cursor from before the answer gives the same.
  expect(unstarted(await resumed(String(beforeOutput)))).toEqual([]);
});

test('a cursor that no stream can have been at is a 400', async () => {
  for (const made of [
    `${beforeOutput}~${beforeOutput + 5}~c~1~0`, // streaming after an entry past the cursor
    `${beforeOutput}~${beforeOutput}~c~0~0`, // attempt 0
    `${beforeOutput}~${beforeOutput}~${'c'.repeat(400)}~1~0`, // an id no call has
    `${beforeOutput}~t`, // a run without an id
    'abc',
    `${beforeOutput}~x~y`,
  ]) {
    const res = await fetch(`${rest.gw.url}/agents/${agentId}/events`, { headers: { 'last-event-id': made } });
    expect({ made, status: res.status, body: await res.json() }).toMatchObject({ made, status: 400, body: { error: { code: 'BAD_LAST_EVENT_ID' } } });
  }
});
