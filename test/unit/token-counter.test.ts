/**
 * The o200k token counter: close to the plain encoder on ordinary text, and finishing (with plausible
 * counts) on the long runs that made js-tiktoken's merge take minutes. No timing assertions: a hang
 * is caught by jest's timeout.
 */
import { readFileSync } from 'node:fs';
import path from 'node:path';
import { Tiktoken } from 'js-tiktoken/lite';
import { tokenizerFor } from '../../activities/models/context-window';
import { EXACT_CHARS, TokenCounter } from '../../activities/models/token-counter';

// eslint-disable-next-line @typescript-eslint/no-require-imports
const ranks = require('js-tiktoken/ranks/o200k_base');
const counter = tokenizerFor('openai:gpt-4.1-mini')!;
const root = path.resolve(__dirname, '../..');

describe('token counter', () => {
  it('is used for the o200k families only', () => {
    expect(tokenizerFor('openai:gpt-4o-mini')).toBe(counter);
    expect(tokenizerFor('anthropic:claude-sonnet-4-6')).toBeUndefined();
  });

  it('counts ordinary prose and code as the plain encoder does', () => {
    const encoder = new Tiktoken(ranks);
    const prose =
      'The agent is a Temporal workflow; model calls and tools are activities. When a worker crashes, ' +
      "another one picks the run up where it stopped. Grüße aus Köln — 日本語のテキスト, emoji 🎉 and Ελληνικά. It's fine, isn't it?\n\n";
    expect(counter.count(prose)).toBe(encoder.encode(prose).length);
    for (const file of ['README.md', 'activities/call-model.ts', 'agent/agent.ts', 'agent/agent-config.ts', 'package.json']) {
      const text = readFileSync(path.join(root, file), 'utf8');
      const expected = encoder.encode(text, [], []).length;
      // Equal unless a file holds a run longer than the merge cap (then within a fraction of a percent).
      expect(Math.abs(counter.count(text) - expected)).toBeLessThanOrEqual(Math.ceil(expected * 0.005));
    }
  });

  it('finishes on long runs of one character, with plausible counts', () => {
    const runs = [
      'y'.repeat(100_000),
      'x'.repeat(64 * 1024),
      '='.repeat(64 * 1024),
      'Y'.repeat(64 * 1024),
      ' '.repeat(64 * 1024),
      '\n'.repeat(64 * 1024),
      '7'.repeat(64 * 1024),
      '語'.repeat(64 * 1024),
      '🎉'.repeat(32 * 1024),
      'a' + '\u0301'.repeat(64 * 1024),
    ];
    for (const text of runs) {
      const bytes = Buffer.byteLength(text);
      const count = counter.count(text);
      // At least one token per 256 bytes (o200k's longest tokens are runs of spaces), at most one per byte.
      expect(count).toBeGreaterThanOrEqual(Math.floor(bytes / 256));
      expect(count).toBeLessThanOrEqual(bytes);
    }
    expect(counter.count('y'.repeat(100_000))).toBeGreaterThan(100_000 / 16);
  });

  it('counts special-token text as plain text instead of failing', () => {
    expect(counter.count('before <|endoftext|> after')).toBeGreaterThan(3);
  });

  it('extrapolates past the exact bound', () => {
    const sentence = 'A sentence of ordinary words, repeated to make a long text. ';
    const repeats = Math.ceil((EXACT_CHARS * 2) / sentence.length);
    const perSentence = counter.count(sentence.repeat(1000)) / 1000;
    const count = counter.count(sentence.repeat(repeats));
    const expected = repeats * perSentence;
    expect(Math.abs(count - expected)).toBeLessThan(expected * 0.02);
  });

  it.each([
    ['long texts', ['z'.repeat(300_000), 'some words of prose '.repeat(20_000), 'short']],
    ['many short texts', Array.from({ length: 20_000 }, (_, i) => `message ${i}: ${'word '.repeat(20)}`)],
  ])('prepares counts of %s in slices that let the event loop run, then recalls them', async (_what, texts) => {
    const fresh = new TokenCounter(() => ranks);
    let turns = 0;
    const ticking = setInterval(() => turns++, 0);
    try {
      await fresh.prepare(texts);
    } finally {
      clearInterval(ticking);
    }
    expect(turns).toBeGreaterThan(0);
    for (const text of texts.slice(0, 100)) expect(fresh.count(text)).toBe(counter.count(text));
  });
});
