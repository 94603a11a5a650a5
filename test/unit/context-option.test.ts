/** The context policy: the CLI's options (checked into a policy, merged over the agent's on configure, refused with the option's name) and the configuration's checks. */
import { Agent, NewAgentConfig } from '../../agent/index';
import { contextOption } from '../../cli/context-option';
import { describeContext } from '../../client/state-view';

test('context options become a checked policy; configure keeps what is not given', () => {
  expect(contextOption({})).toBeUndefined();
  expect(contextOption({ 'context-policy': 'trim' })).toEqual({ policy: 'trim' });
  expect(contextOption({ 'compaction-model': 'anthropic:claude-haiku-4-5', 'compact-at': '0.7', 'cache-ttl': '1h' })).toEqual({
    compactionModel: 'anthropic:claude-haiku-4-5',
    compactAt: 0.7,
    cacheTtl: '1h',
  });
  const current = { compactionModel: 'openai:gpt-4.1-mini', cacheTtl: '1h' as const };
  expect(contextOption({ 'compact-at': '0.9' }, current)).toEqual({ ...current, compactAt: 0.9 });
  expect(contextOption({ 'compaction-model': '', 'cache-ttl': '' }, current)).toEqual({});
});

test('bad context options are refused, naming the option', () => {
  expect(() => contextOption({ 'compact-at': '0.3' })).toThrow(/--compact-at/);
  expect(() => contextOption({ 'compact-at': 'often' })).toThrow(/--compact-at/);
  expect(() => contextOption({ 'context-policy': 'forget' })).toThrow(/--context-policy/);
  expect(() => contextOption({ 'cache-ttl': '1d' })).toThrow(/--cache-ttl/);
  expect(() => contextOption({ 'compaction-model': 'haiku' })).toThrow(/provider:model/);
});

test('the policy in a line', () => {
  expect(describeContext(undefined)).toBe('context: compact at 0.8');
  expect(describeContext({ policy: 'trim' })).toMatch(/^context: trim/);
  expect(describeContext({ compactionModel: 'x:y', compactAt: 0.6, cacheTtl: '1h' })).toBe('context: compact at 0.6 (summaries by x:y), cache TTL 1h');
});

test('the context policy in a configuration: every field optional, bad values refused by name', () => {
  const agent = Agent.create({ config: { model: 'fake:m' }, clock: () => 0 });
  expect(() => agent.checkConfigChange({ context: { compactAt: 0.3 } })).toThrow(/context\.compactAt/);
  expect(() => agent.checkConfigChange({ context: { policy: 'forget' } })).toThrow(/context\.policy/);
  expect(() => agent.checkConfigChange({ context: { cacheTtl: '1d' } })).toThrow(/context\.cacheTtl/);
  expect(() => agent.checkConfigChange({ context: { summaries: true } })).toThrow(/context/);
  agent.configure({ context: { compactionModel: 'openai:gpt-4.1-mini', cacheTtl: '1h' } });
  expect(agent.config.context).toEqual({ compactionModel: 'openai:gpt-4.1-mini', cacheTtl: '1h' });
  // An agent that sets nothing keeps a snapshot without it.
  expect('context' in Agent.create({ config: { model: 'fake:m' }, clock: () => 0 }).toSnapshot().config).toBe(false);
  expect(NewAgentConfig.safeParse({ model: 'fake:m', context: { policy: 'trim' } }).success).toBe(true);
});
