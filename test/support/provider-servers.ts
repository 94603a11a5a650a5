/** Both wire-level fake providers and a worker whose OpenAI/Anthropic providers point at them. */
import { anthropicProvider, openaiProvider } from '../../activities';
import { type FakeAnthropicServer, startFakeAnthropicServer } from './fake-anthropic-server';
import { type FakeOpenAIServer, startFakeOpenAIServer } from './fake-openai-server';

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
