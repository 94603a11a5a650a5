/**
 * The model name check of `start`, `configure` and `up`; what they warn about before an agent's first
 * model call is client/model-warning.ts (the gateway says the same).
 */
import { ModelName } from '../agent/index';
import { UserError } from '../common/user-error';

export { modelWarning } from '../client/model-warning';

export function checkModel(model: string): string {
  if (!ModelName.safeParse(model).success) {
    throw new UserError(`Invalid model name "${model}": name it provider:model, e.g. openai:gpt-4.1-mini or anthropic:claude-sonnet-4-6.`);
  }
  return model;
}
