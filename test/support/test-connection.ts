/** A test file's connection to the dev server, on a fresh task queue, open from beforeAll to afterAll. */
import { connectTest, type TestContext, uniqueId } from './temporal';

/**
 * Opens the connection before the file's (or describe block's) tests and closes it after them; `t` may be
 * destructured at once: it reads the connection of the moment.
 */
export function useTestConnection(queuePrefix: string): { t: TestContext; taskQueue: string } {
  const taskQueue = uniqueId(queuePrefix);
  let t: TestContext | undefined;
  beforeAll(async () => {
    t = await connectTest(taskQueue);
  });
  afterAll(async () => {
    await t?.close();
    t = undefined;
  });
  return { t: opened('the dev server connection', () => t), taskQueue };
}

/** A stand-in for what a hook opens: reads go to the current value, and fail clearly while there is none. */
export function opened<T extends object>(what: string, current: () => T | undefined): T {
  return new Proxy({} as T, {
    get(_, key) {
      const value = current();
      if (!value) throw new Error(`${what} of a test file read outside its tests (.${String(key)}): it is open from beforeAll to afterAll`);
      const member = Reflect.get(value, key, value);
      return typeof member === 'function' ? member.bind(value) : member;
    },
  });
}
