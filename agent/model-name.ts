/**
 * `provider:model` names (`openai:gpt-4.1-mini`, `ollama:llama3.2:3b`) split in one place: at the first
 * colon, so a model's own colons stay in the model part. AgentConfig's `ModelName` schema ensures a
 * valid name has both parts; a name without a provider (no colon, or one at the start) gives provider
 * `''`, which no worker registers, and the rest as the model.
 *
 * @example
 * splitModelName('ollama:llama3.2:3b'); // { provider: 'ollama', model: 'llama3.2:3b' }
 */
export function splitModelName(name: string): { provider: string; model: string } {
  const colon = name.indexOf(':');
  return { provider: colon > 0 ? name.slice(0, colon) : '', model: name.slice(colon + 1) };
}
