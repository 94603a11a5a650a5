/**
 * The stream endpoint and its reader without Temporal: a reader with the shared secret follows a call
 * through the address the worker advertises (as on another machine), one with another secret is refused
 * and keeps the heartbeat's output, and a call that ended is gone.
 */
import { createServer } from 'node:net';
import { StreamChannel } from '../../activities/stream-channel/stream-server';
import { StreamChannelReader } from '../../common/stream-channel/channel-reader';

const secretBefore = process.env.LIVECONTEXT_STREAM_SECRET;
beforeAll(() => {
  process.env.LIVECONTEXT_STREAM_SECRET = 'unit-test-stream-secret';
});
afterAll(() => {
  if (secretBefore === undefined) delete process.env.LIVECONTEXT_STREAM_SECRET;
  else process.env.LIVECONTEXT_STREAM_SECRET = secretBefore;
});

const freePort = () =>
  new Promise<number>((resolve) => {
    const s = createServer().listen(0, '127.0.0.1', () => {
      const { port } = s.address() as { port: number };
      s.close(() => resolve(port));
    });
  });

async function until<T>(check: () => T | undefined | false, what: string): Promise<T> {
  for (let i = 0; i < 200; i++) {
    const v = check();
    if (v) return v;
    await new Promise((r) => setTimeout(r, 20));
  }
  throw new Error(`timed out waiting for ${what}`);
}

test('a reader follows a call at the advertised address; another secret is refused; an ended call is gone', async () => {
  const port = await freePort();
  const channel = await StreamChannel.start({ listen: `0.0.0.0:${port}`, advertise: `http://localhost:${port}/` });
  const reader = new StreamChannelReader(Buffer.from('unit-test-stream-secret'));
  const stranger = new StreamChannelReader(Buffer.from('some other secret'));
  try {
    const call = channel.open(2);
    expect(call.location.url).toMatch(new RegExp(`^http://localhost:${port}/v1/calls/[0-9a-f-]{36}$`));
    const heartbeat = { attempt: 2, text: 'he', textChars: 2, channel: call.location };
    expect(reader.latest(heartbeat)).toBe(heartbeat); // nothing published yet: the heartbeat's output
    call.publish({ attempt: 2, text: 'hello wor', textChars: 9 });
    await until(() => reader.latest(heartbeat)?.text === 'hello wor', 'the published text');
    call.publish({ attempt: 2, text: 'hello world', textChars: 11 });
    await until(() => reader.latest(heartbeat)?.text === 'hello world', 'the next text');

    expect(stranger.latest(heartbeat)).toBe(heartbeat);
    await new Promise((r) => setTimeout(r, 200));
    expect(stranger.latest(heartbeat)).toBe(heartbeat); // refused (403): stays on the heartbeat
    expect(stranger.following(heartbeat)).toBe(false);

    // A heartbeat of another attempt than the stream's is not followed there.
    expect(reader.latest({ ...heartbeat, attempt: 3, text: '' })).toMatchObject({ attempt: 3, text: '' });

    call.end();
    expect(channel.openCalls).toBe(0);
    expect(reader.latest(heartbeat)?.text).toBe('hello world'); // the last text stays until the heartbeat goes
    const late = new StreamChannelReader(Buffer.from('unit-test-stream-secret'));
    late.latest(heartbeat);
    await new Promise((r) => setTimeout(r, 200));
    expect(late.following(heartbeat)).toBe(false); // 404: an ended call's text comes from history
    late.close();
  } finally {
    reader.close();
    stranger.close();
    await channel.close();
  }
});

test("a reader waiting for a followed stream's next change is woken by each publish and by its end", async () => {
  const channel = await StreamChannel.start();
  const reader = new StreamChannelReader(Buffer.from('unit-test-stream-secret'));
  try {
    const call = channel.open(1);
    const heartbeat = { attempt: 1, text: '', textChars: 0, channel: call.location };
    expect(reader.nextChange(heartbeat)).toBeUndefined(); // not followed yet
    expect(reader.nextChange({ attempt: 1, text: '' })).toBeUndefined(); // a heartbeat partial: nothing to wait for
    reader.latest(heartbeat); // starts following
    const first = reader.nextChange(heartbeat)!;
    call.publish({ attempt: 1, text: 'one', textChars: 3 });
    await first;
    expect(reader.latest(heartbeat)?.text).toBe('one');
    const next = reader.nextChange(heartbeat)!;
    call.publish({ attempt: 1, text: 'one two', textChars: 7 });
    await next;
    expect(reader.latest(heartbeat)?.text).toBe('one two');
    const last = reader.nextChange(heartbeat)!;
    call.end();
    await last;
    expect(reader.nextChange(heartbeat)).toBeUndefined(); // ended: nothing more comes
  } finally {
    reader.close();
    await channel.close();
  }
});

test('output published as a function is made only once someone reads the stream, then on each publish', async () => {
  const channel = await StreamChannel.start();
  const reader = new StreamChannelReader(Buffer.from('unit-test-stream-secret'));
  try {
    const call = channel.open(1);
    const heartbeat = { attempt: 1, text: '', textChars: 0, channel: call.location };
    let made = 0;
    const output = (text: string) => () => (made++, { attempt: 1, text, textChars: text.length });
    call.publish(output('one'));
    call.publish(output('one two'));
    expect(made).toBe(0); // nobody reads: nothing made, nothing serialised
    reader.latest(heartbeat); // starts following: the newest output is made for it
    await until(() => reader.latest(heartbeat)?.text === 'one two', 'the output made for the first reader');
    expect(made).toBe(1);
    call.publish(output('one two three'));
    expect(made).toBe(2); // followed: made at once
    await until(() => reader.latest(heartbeat)?.text === 'one two three', 'the next output');
    call.end();
  } finally {
    reader.close();
    await channel.close();
  }
});
