/** Property tests of the token budget over random histories: within budget, no split pairs, idempotent. */
import fc from 'fast-check';
import {
  AgentState,
  type ContextMessage,
  calibrationFactor,
  countMessageTokens,
  fitToBudget,
  renderLiveContext,
  renderModelContext,
  unwrap,
} from '../../agent/index';
import { history, invocation } from '../support/random-history';

const count = (m: ContextMessage) => countMessageTokens(m);
const total = (ms: readonly ContextMessage[]) => ms.reduce((n, m) => n + count(m), 0);

function assertNoSplitPairs(ms: readonly ContextMessage[]) {
  ms.forEach((m, i) => {
    const u = unwrap(m);
    if (u.kind === 'model_output' && u.toolCalls.length && i < ms.length - 1) {
      const next = unwrap(ms[i + 1]);
      expect(next.kind).toBe('tool_results');
      if (next.kind === 'tool_results') expect(next.results.map((r) => r.toolCallId)).toEqual(u.toolCalls.map((c) => c.toolCallId));
    }
    if (u.kind === 'tool_results') {
      const prev = i > 0 ? unwrap(ms[i - 1]) : undefined;
      expect(prev?.kind).toBe('model_output');
    }
  });
}

test('fitted context: within budget (or minimal), no split pairs, idempotent, system and LiveScreen kept', () => {
  fc.assert(
    fc.property(history, fc.integer({ min: 1, max: 3000 }), (entries, budget) => {
      const rendered = renderLiveContext(entries, { liveScreen: '# [Live Screen]\n\n## Memory Notebook\n\nnotes' });
      const fitted = fitToBudget(rendered, budget, count);
      expect(fitted.tokens).toBe(total(fitted.messages));
      assertNoSplitPairs(fitted.messages);
      expect(fitted.messages[0]).toEqual(rendered[0]); // system instruction
      expect(fitted.messages[fitted.messages.length - 1]).toBe(rendered[rendered.length - 1]); // carries the LiveScreen
      // A subsequence of the original, in order.
      let j = 0;
      for (const m of fitted.messages) {
        while (rendered[j] !== m) j++;
        j++;
      }
      if (fitted.tokens > budget) {
        // Only when nothing more can go: system + the newest turn's input + its newest group.
        const bodyKinds = fitted.messages.slice(1).map((m) => unwrap(m).kind);
        expect(bodyKinds[0]).toBe('model_input');
        expect(bodyKinds.length).toBeLessThanOrEqual(3);
      }
      expect(fitToBudget(fitted.messages, budget, count)).toEqual({ ...fitted, dropped: 0 });
      expect(fitted.dropped).toBe(rendered.length - fitted.messages.length);
    }),
    { numRuns: 300 },
  );
});

test('everything fits: nothing is dropped', () => {
  fc.assert(
    fc.property(history, (entries) => {
      const rendered = renderLiveContext(entries);
      expect(fitToBudget(rendered, total(rendered), count)).toMatchObject({ messages: rendered, dropped: 0 });
    }),
  );
});

test('the estimate is calibrated by the input tokens the provider reported', () => {
  const s = new AgentState(() => 0);
  s.appendModelInput({ sections: [{ title: 'Input', content: 'hello' }] });
  expect(calibrationFactor(s.entries)).toBe(1);
  s.appendModelOutput({ contents: ['hi'], toolCalls: [], invocation, usage: { inputTokens: 300, outputTokens: 1 }, metadata: { estimated_input_tokens: 100 } });
  expect(calibrationFactor(s.entries)).toBe(3);
  expect(calibrationFactor(s.entries, 1)).toBe(1); // as it was before that output
  s.appendModelInput({ sections: [{ title: 'Input', content: 'x'.repeat(4000) }] });
  const plain = renderModelContext(s.entries, { uptoSeq: 3 });
  const budgeted = renderModelContext(s.entries, { uptoSeq: 3, maxInputTokens: 1500 });
  // 4000 bytes ≈ 1000 tokens raw, ×3 calibrated = 3000 > 1500: the older turn goes.
  expect(plain.dropped).toBe(0);
  expect(budgeted.dropped).toBe(2);
  expect(budgeted.messages.map((m) => unwrap(m).kind)).toEqual(['model_input']);
  expect(budgeted.liveScreen).toMatch(/^# \[Live Screen\]/);
});
