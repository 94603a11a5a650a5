import { AgentState, renderLiveContext, unwrap } from '../../agent/index';

const invocation = { providerId: 'p', specification: 's', model: 'm' };

test('renders the instruction in force at the bound, then the contextual entries; pure and idempotent', () => {
  const s = new AgentState(() => 0);
  s.setSystemInstruction('v1');
  s.appendModelInput({ sections: [{ title: 'Input', content: 'hi' }] });
  s.appendModelOutput({ contents: ['hello'], toolCalls: [], invocation });
  s.setSystemInstruction('v2');
  s.appendModelInput({ sections: [{ title: 'Input', content: 'again' }] });
  const atThree = renderLiveContext(s.entries, { uptoSeq: 3 });
  expect(atThree.map((m) => m.kind)).toEqual(['system', 'model_input', 'model_output']);
  expect(atThree[0]).toEqual({ kind: 'system', instruction: 'v1' });
  const all = renderLiveContext(s.entries);
  expect(all[0]).toEqual({ kind: 'system', instruction: 'v2' });
  expect(renderLiveContext(s.entries)).toEqual(all);
  expect(s.entries).toHaveLength(5);
});

test('a LiveScreen decorates only the newest input or tool results; consumers unwrap first', () => {
  const s = new AgentState(() => 0);
  s.appendModelInput({ sections: [{ title: 'Input', content: 'one' }] });
  s.appendModelOutput({ contents: ['ok'], toolCalls: [], invocation });
  s.appendModelInput({ sections: [{ title: 'Input', content: 'two' }] });
  const msgs = renderLiveContext(s.entries, { liveScreen: '# [Live Screen]' });
  expect(msgs.map((m) => m.kind)).toEqual(['model_input', 'model_output', 'live_screen']);
  expect(unwrap(msgs[2])).toBe(s.entries[2]);
});
