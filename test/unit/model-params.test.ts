/** `params.extra` may add provider fields but not set the ones the adapters own. */
import { extraRequestFields } from '../../activities/models/request-extra';
import { AgentConfig, ConfigChange, NewAgentConfig, NewModelParams as ModelParams, RESERVED_EXTRA_KEYS } from '../../agent/index';

describe('params.extra', () => {
  it.each(RESERVED_EXTRA_KEYS)('refuses "%s", naming it', (key) => {
    const parsed = ModelParams.safeParse({ extra: { [key]: 'anything', seed: 1 } });
    expect(parsed.success).toBe(false);
    const issue = parsed.error!.issues[0];
    expect(issue.path).toEqual(['extra']);
    expect(issue.message).toContain(`"${key}"`);
  });

  it('names every reserved key it finds, and points to the typed params', () => {
    const parsed = ModelParams.safeParse({ extra: { messages: [], stream: false, temperature: 3 } });
    expect(parsed.error!.issues[0].message).toMatch(/^may not set "messages", "stream", "temperature": .*temperature, topP/);
  });

  it('is refused at start and by configure', () => {
    expect(NewAgentConfig.safeParse({ model: 'openai:gpt-4.1-mini', params: { extra: { model: 'gpt-4o' } } }).success).toBe(false);
    // A configuration an agent already holds stays readable (its snapshot, its next run): the adapters drop the key.
    expect(AgentConfig.safeParse({ model: 'openai:gpt-4.1-mini', params: { extra: { model: 'gpt-4o' } } }).success).toBe(true);
    const change = ConfigChange.safeParse({ params: { extra: { stream_options: null } } });
    expect(change.error!.issues[0].path).toEqual(['params', 'extra']);
  });

  it('accepts provider fields the adapters do not set', () => {
    const extra = { seed: 1, metadata: { user_id: 'u-1' }, thinking: { type: 'enabled', budget_tokens: 2048 }, top_k: 5, parallel_tool_calls: false };
    expect(ModelParams.parse({ temperature: 0.2, extra })).toEqual({ temperature: 0.2, extra });
    expect(AgentConfig.safeParse({ model: 'anthropic:claude-sonnet-4-6', params: { extra } }).success).toBe(true);
  });

  it('is stripped of reserved keys by the adapters (a config accepted before they were reserved)', () => {
    expect(extraRequestFields({ seed: 1, stream: false, messages: [], system: 'x', metadata: { a: 1 } })).toEqual({ seed: 1, metadata: { a: 1 } });
    expect(extraRequestFields(undefined)).toEqual({});
  });
});
