/** Both wire-level fake providers and a worker whose OpenAI/Anthropic providers point at them. */
import { anthropicProvider, openaiProvider } from '../../activities/index';
import { type FakeAnthropicServer, startFakeAnthropicServer } from './fake-anthropic-server';
import { type FakeOpenAIServer, startFakeOpenAIServer } from './fake-openai-server';
import { connectTest, type TestContext, uniqueId } from './temporal';

export interface ProviderServers {
  openai: FakeOpenAIServer;
  anthropic: FakeAnthropicServer;
  /** Providers for createLivecontextWorker({ models }), wired to the fakes. */
  models(): ReturnType<typeof openaiProvider>[];
  close(): Promise<void>;
}

export async function startProviderServers(): Promise<ProviderServers> {
  const openai = await startFakeOpenAIServer();
  const anthropic = await startFakeAnthropicServer();
  return {
    openai,
    anthropic,
    models: () => [
      openaiProvider({ apiKey: openai.apiKey, baseURL: `${openai.url}/v1` }),
      anthropicProvider({ apiKey: anthropic.apiKey, baseURL: anthropic.url }),
    ],
    close: async () => {
      await openai.close();
      await anthropic.close();
    },
  };
}

export interface ProviderTestSetup {
  /** A client of the dev server, its AgentClient on `taskQueue`. */
  t: TestContext;
  /** The fake providers; `p.models()` for the test's workers. */
  p: ProviderServers;
  /** A task queue of this test file's own. */
  taskQueue: string;
}

/**
 * The set-up of a test file whose workers call the fake providers: a connection to the dev server and
 * both fakes, opened before the file's tests (`each: true`: fresh fakes for every test, so answers one
 * test left unused never answer another) and closed after them. `t` and `p` can be destructured at
 * once; they refer to what the hooks open, and say so when used outside a test.
 */
export function useProviderServers(queuePrefix: string, options: { each?: boolean } = {}): ProviderTestSetup {
  const taskQueue = uniqueId(queuePrefix);
  let t: TestContext | undefined;
  let p: ProviderServers | undefined;
  beforeAll(async () => {
    t = await connectTest(taskQueue);
  });
  afterAll(async () => {
    await t?.close();
    t = undefined;
  });
  const start = async () => {
    p = await startProviderServers();
  };
  const stop = async () => {
    await p?.close();
    p = undefined;
  };
  if (options.each) {
    beforeEach(start);
    afterEach(stop);
  } else {
    beforeAll(start);
    afterAll(stop);
  }
  return { t: opened('the dev server connection', () => t), p: opened('the fake providers', () => p), taskQueue };
}

/** A stand-in for what a hook opens: reads go to the current value, and fail clearly while there is none. */
function opened<T extends object>(what: string, current: () => T | undefined): T {
  return new Proxy({} as T, {
    get(_, key) {
      const value = current();
      if (!value) throw new Error(`${what} of useProviderServers read outside its tests (.${String(key)}): it is open from beforeAll to afterAll`);
      const member = Reflect.get(value, key, value);
      return typeof member === 'function' ? member.bind(value) : member;
    },
  });
}
