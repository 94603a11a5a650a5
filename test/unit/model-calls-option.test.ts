/** `modelCalls`: a start option, a configure change and a sub-agent profile's field; anything but its two values is refused. */
import { ConfigChange, NewAgentConfig, SubAgentProfile, childConfig } from '../../agent/index';

test('modelCalls is accepted at start and by configure, and refused with the field named when unknown', () => {
  expect(NewAgentConfig.parse({ model: 'openai:gpt-4.1-mini', modelCalls: 'local' })).toMatchObject({ modelCalls: 'local' });
  expect(ConfigChange.parse({ modelCalls: 'activity' })).toEqual({ modelCalls: 'activity' });
  const bad = NewAgentConfig.safeParse({ model: 'openai:gpt-4.1-mini', modelCalls: 'remote' });
  expect(bad.success).toBe(false);
  expect(bad.error?.issues[0].path).toEqual(['modelCalls']);
});

test("a sub-agent makes its calls as its profile says, not as its parent's", () => {
  const parent = { model: 'openai:gpt-4.1-mini', modelCalls: 'local' as const };
  const local = SubAgentProfile.parse({ model: 'openai:gpt-4.1-mini', modelCalls: 'local' });
  expect(childConfig(parent, 'parent', 'call-1', local).modelCalls).toBe('local');
  expect(childConfig(parent, 'parent', 'call-2', SubAgentProfile.parse({ model: 'openai:gpt-4.1-mini' })).modelCalls).toBeUndefined();
});
