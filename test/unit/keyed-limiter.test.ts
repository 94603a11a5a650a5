/** KeyedLimiter: a few tasks at a time per key; a task with holdAtMostMs lets the next one go after that long while it goes on. */
import { KeyedLimiter } from '../../client/keyed-limiter';

const never = () => new Promise<never>(() => undefined);

afterEach(() => jest.useRealTimers());

test('at most `limit` tasks per key run at once; other keys are not held back', async () => {
  const limiter = new KeyedLimiter(1);
  let release!: () => void;
  const first = limiter.run('a', () => new Promise<void>((r) => (release = r)));
  const ran: string[] = [];
  const second = limiter.run('a', async () => void ran.push('a2'));
  await limiter.run('b', async () => void ran.push('b1'));
  expect(ran).toEqual(['b1']);
  release();
  await first;
  await second;
  expect(ran).toEqual(['b1', 'a2']);
});

test('a task held at most holdAtMostMs lets the next one run while it goes on', async () => {
  jest.useFakeTimers();
  const limiter = new KeyedLimiter(1);
  void limiter.run('a', never, 1000);
  const ran: string[] = [];
  const next = limiter.run('a', async () => void ran.push('next'));
  await Promise.resolve();
  expect(ran).toEqual([]);
  await jest.advanceTimersByTimeAsync(1000);
  await next;
  expect(ran).toEqual(['next']);
});

test('a task that ends before holdAtMostMs frees its slot once, not twice', async () => {
  jest.useFakeTimers();
  const limiter = new KeyedLimiter(1);
  await limiter.run('a', async () => 'done', 1000);
  await jest.advanceTimersByTimeAsync(1000); // the timer was cleared: no second release
  let release!: () => void;
  const held = limiter.run('a', () => new Promise<void>((r) => (release = r)));
  const ran: string[] = [];
  const after = limiter.run('a', async () => void ran.push('after'));
  await jest.advanceTimersByTimeAsync(10);
  expect(ran).toEqual([]); // the limit is still one
  release();
  await held;
  await after;
  expect(ran).toEqual(['after']);
});
