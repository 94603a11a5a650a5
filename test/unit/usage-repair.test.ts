/** Token counts a provider gets wrong are repaired where they enter (issue 26): whole, non-negative, at most a billion. */
import { MAX_TOKENS_PER_CALL, repairStreamUsage } from '../../activities/models/usage-repair';
import { TokenUsage } from '../../agent/index';

test("1e20, negative, NaN, Infinity and strings become safe counts, each noted; the agent's schema accepts them", () => {
  const { usage, repairs } = repairStreamUsage({ inputTokens: 1e20, outputTokens: NaN, totalTokens: Infinity, cachedInputTokens: -4 });
  expect(usage).toEqual({ inputTokens: MAX_TOKENS_PER_CALL, outputTokens: 0, totalTokens: MAX_TOKENS_PER_CALL, cachedInputTokens: 0 });
  expect(repairs).toEqual([
    'inputTokens 100000000000000000000 read as 1000000000',
    'outputTokens NaN read as 0',
    'cachedInputTokens -4 read as 0',
    'totalTokens Infinity read as 1000000000',
  ]);
  expect(TokenUsage.safeParse({ inputTokens: usage.inputTokens, outputTokens: usage.outputTokens, cachedInputTokens: usage.cachedInputTokens }).success).toBe(
    true,
  );
  const odd = repairStreamUsage({ inputTokens: '12' as unknown as number, outputTokens: 2.6, totalTokens: 14.6 });
  expect(odd.usage).toEqual({ inputTokens: 0, outputTokens: 3, totalTokens: 3 });
});

test('plausible usage is left as it is', () => {
  const usage = { inputTokens: 120, outputTokens: 30, totalTokens: 150, cachedInputTokens: 100 };
  expect(repairStreamUsage(usage)).toEqual({ usage, repairs: [] });
});
