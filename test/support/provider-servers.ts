/** Both wire-level fake providers and a worker whose OpenAI/Anthropic providers point at them. */
import { anthropicProvider, openaiProvider } from '../../activities/index';
import { type FakeAnthropicServer, startFakeAnthropicServer } from './fake-anthropic-server';
import { type FakeOpenAIServer, startFakeOpenAIServer } from './fake-openai-server';
import type { TestContext } from './temporal';
import { opened, useTestConnection } from './test-connection';

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
  const { t, taskQueue } = useTestConnection(queuePrefix);
  let p: ProviderServers | undefined;
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
  return { t, p: opened('the fake providers', () => p), taskQueue };
}
