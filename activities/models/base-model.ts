/** The config and identity part of every Model (seed 002 `update_config`/`get_config`/`modelInfo`). */
import type { ContextMessage, MessageDelta, Model, ModelConfig, ModelInfo, StreamOptions, ToolSpec } from '../../agent/index';

export abstract class BaseModel implements Model {
  protected config: ModelConfig;

  constructor(
    protected readonly providerId: string,
    private readonly specification: string,
    modelId: string,
  ) {
    this.config = { modelId };
  }

  updateConfig(config: Partial<ModelConfig>): void {
    this.config = { ...this.config, ...config };
  }

  getConfig(): ModelConfig {
    return this.config;
  }

  modelInfo(): ModelInfo {
    return { providerId: this.providerId, specification: this.specification, modelId: this.config.modelId };
  }

  abstract stream(
    messages: readonly ContextMessage[],
    toolSpecs: readonly ToolSpec[],
    systemPrompt: string | undefined,
    options: StreamOptions,
  ): AsyncIterable<MessageDelta>;
}
