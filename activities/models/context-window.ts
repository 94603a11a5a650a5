/**
 * Context windows of known model families (tokens) and the tokenizer to count with. An agent's own
 * `contextWindow` setting wins over this table; unknown models get no trimming.
 */
import { TokenCounter } from './token-counter';

const WINDOWS: Array<[RegExp, number]> = [
  [/^openai:gpt-4\.1/, 1_047_576],
  [/^openai:gpt-5/, 400_000],
  [/^openai:(o1|o3|o4)/, 200_000],
  [/^openai:gpt-4o/, 128_000],
  [/^anthropic:claude-/, 200_000],
];

/** Room left for the answer when trimming the input. */
const OUTPUT_RESERVE_TOKENS = 8_192;

export function inputBudgetFor(model: string, contextWindow?: number): number | undefined {
  const window = contextWindow ?? WINDOWS.find(([re]) => re.test(model))?.[1];
  if (window === undefined) return undefined;
  return window - Math.min(OUTPUT_RESERVE_TOKENS, Math.floor(window / 4));
}

let o200k: TokenCounter | undefined;

/** OpenAI's o200k_base for the GPT-4o/4.1/5 and o-series families; undefined = the byte estimate. */
export function tokenizerFor(model: string): TokenCounter | undefined {
  if (!/^openai:(gpt-4o|gpt-4\.1|gpt-5|o1|o3|o4)/.test(model)) return undefined;
  // The ranks (a few MB) are loaded on first use.
  o200k ??= new TokenCounter(() => {
    // eslint-disable-next-line @typescript-eslint/no-require-imports
    const ranks = require('js-tiktoken/ranks/o200k_base');
    return ranks.default ?? ranks;
  });
  return o200k;
}
