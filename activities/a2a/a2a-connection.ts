/**
 * One configured remote A2A agent: its card (read at start-up; read again at the first call when it could
 * not be then) and the SDK client made from it, with the bearer token from the worker's environment on
 * every request. The token is only ever in this object and the request headers; `redact` cuts it out of
 * any text that leaves.
 */
import type { AgentCard } from '@a2a-js/sdk';
import { type Client, ClientFactory, DefaultAgentCardResolver, JsonRpcTransportFactory } from '@a2a-js/sdk/client';
import { redactSecrets } from '../tools/redact-secrets';
import type { A2aAgentConfig } from './config';

const CARD_TIMEOUT_MS = 15_000;

export class A2aAgentConnection {
  card: AgentCard | undefined;
  private client: Promise<Client> | undefined;
  private readonly factory: ClientFactory;

  constructor(readonly config: A2aAgentConfig) {
    const token = config.token;
    const fetchImpl: typeof fetch = (input, init) => {
      const headers = new Headers(init?.headers);
      if (token) headers.set('authorization', `Bearer ${token}`);
      return fetch(input, { ...init, headers });
    };
    this.factory = new ClientFactory({ transports: [new JsonRpcTransportFactory({ fetchImpl })], cardResolver: new DefaultAgentCardResolver({ fetchImpl }) });
  }

  get name(): string {
    return this.config.name;
  }

  redact(text: string): string {
    return redactSecrets(text, this.config.secrets);
  }

  /** Reads the card and makes the client; a failure is thrown (redacted) and the next call tries again. */
  connect(): Promise<Client> {
    this.client ??= (async () => {
      const card = await new DefaultAgentCardResolver({ fetchImpl: this.timedFetch() }).resolve(this.config.cardUrl, '');
      this.card = card;
      return this.factory.createFromAgentCard(card);
    })().catch((err: unknown) => {
      this.client = undefined;
      throw new Error(
        this.redact(`the card of the A2A agent "${this.name}" could not be read from ${this.config.cardUrl}: ${(err as Error)?.message ?? String(err)}`),
      );
    });
    return this.client;
  }

  /** The card's fetch, with the token and a time limit (a remote that never answers must not hold up the worker's start). */
  private timedFetch(): typeof fetch {
    const token = this.config.token;
    return (input, init) => {
      const headers = new Headers(init?.headers);
      if (token) headers.set('authorization', `Bearer ${token}`);
      return fetch(input, { ...init, headers, signal: AbortSignal.timeout(CARD_TIMEOUT_MS) });
    };
  }
}
