/** `provider:model` split in one place (agent/model-name.ts): at the first colon; no provider gives ''. */
import { type Model, splitModelName } from '../../agent/index';
import { ModelRouter } from '../../activities/models/model-router';
import { providerOf } from '../../workflows/model-routing';

test('a name splits at its first colon: the model keeps its own colons', () => {
  expect(splitModelName('openai:gpt-4.1-mini')).toEqual({ provider: 'openai', model: 'gpt-4.1-mini' });
  expect(splitModelName('ollama:llama3.2:3b')).toEqual({ provider: 'ollama', model: 'llama3.2:3b' });
  expect(providerOf('anthropic:claude-sonnet-4-6')).toBe('anthropic');
});

test('a name without a provider has provider "" (which no worker registers) and the rest as the model', () => {
  expect(splitModelName('gpt-4.1')).toEqual({ provider: '', model: 'gpt-4.1' });
  expect(splitModelName(':gpt-4.1')).toEqual({ provider: '', model: 'gpt-4.1' });
  expect(providerOf('gpt-4.1')).toBe('');
});

test('the router hands the provider the model part, and names a provider it lacks as before', () => {
  const asked: string[] = [];
  const router = new ModelRouter([{ id: 'ollama', create: (id) => (asked.push(id), {} as Model) }]);
  router.resolve('ollama:llama3.2:3b');
  expect(asked).toEqual(['llama3.2:3b']);
  expect(() => router.resolve('openai:gpt-4.1')).toThrow('No provider "openai" on this worker for model "openai:gpt-4.1". Registered: ollama.');
  expect(() => router.resolve('gpt-4.1')).toThrow('No provider "" on this worker for model "gpt-4.1". Registered: ollama.');
});
