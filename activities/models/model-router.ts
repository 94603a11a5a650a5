/**
 * The provider router: a model is named `provider:model`; the provider part picks a registered
 * ModelProvider, which builds a Model for the rest. API keys and base URLs belong to providers, which
 * read them from the worker's environment, never from agent state.
 */
import { ApplicationFailure } from '@temporalio/common';
import { type Model, splitModelName } from '../../agent/index';

export interface ModelProvider {
  /** The `provider` part of `provider:model`. */
  id: string;
  create(modelId: string): Model;
  /**
   * Whether this worker can call the provider's models (e.g. its API key is in the environment), and
   * if not, what is missing — never a secret. A provider without it is taken as ready.
   */
  readiness?(): Readiness;
}

export interface Readiness {
  ready: boolean;
  /** What is missing, naming what to set: "OPENAI_API_KEY is not set in this worker's environment, …". */
  problem?: string;
}

/** One provider of a worker, as clients are told it (`livecontext start` warns with this). */
export interface ProviderReadiness extends Readiness {
  id: string;
}

export class ModelRouter {
  private readonly providers = new Map<string, ModelProvider>();

  constructor(providers: readonly ModelProvider[] = []) {
    for (const p of providers) this.providers.set(p.id, p);
  }

  register(provider: ModelProvider): void {
    this.providers.set(provider.id, provider);
  }

  providerIds(): string[] {
    return [...this.providers.keys()];
  }

  /** Every registered provider and whether it can be called from this worker. */
  readiness(): ProviderReadiness[] {
    return [...this.providers.values()].map((p) => ({ id: p.id, ...(p.readiness?.() ?? { ready: true }) }));
  }

  resolve(name: string): Model {
    const { provider: providerId, model } = splitModelName(name);
    const provider = this.providers.get(providerId);
    if (!provider) {
      throw ApplicationFailure.create({
        type: 'UNKNOWN_PROVIDER',
        message: `No provider "${providerId}" on this worker for model "${name}". Registered: ${this.providerIds().join(', ')}.`,
        nonRetryable: true,
      });
    }
    return provider.create(model);
  }
}
