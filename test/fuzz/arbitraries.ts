/**
 * Random and malformed material for the boundary fuzz suite: what providers, tools, senders and
 * snapshot files can hand an agent — the ordinary, the odd (seen from OpenAI-compatible servers) and
 * the hostile.
 */
import fc from 'fast-check';

/** Any JSON value, weighted towards the shapes our schemas expect, with odd members mixed in. */
export const anyJson = fc.jsonValue({ maxDepth: 3 });

/** Numbers as odd servers send them: fractional, negative, huge, or not numbers at all. */
export const oddCount = fc.oneof(
  fc.nat(100_000),
  fc.double({ min: -10, max: 1e7, noNaN: true }),
  fc.constantFrom(-1, 0.5, 1e21, Number.MAX_SAFE_INTEGER),
  fc.string({ maxLength: 4 }),
  fc.constant(null),
);

/** Tool call ids: usual, empty, blank, duplicated across calls (from a tiny pool), very long, non-ASCII. */
export const oddId = fc.oneof(
  fc.constantFrom('', ' ', 'call_1', 'call_1', 'toolu_01'),
  fc.string({ maxLength: 8 }),
  fc.string({ minLength: 200, maxLength: 300 }),
  fc.constant('ид-🙂'),
);

export const toolNames = ['record', 'memory_notebook_replace', 'sleep', 'wait_until', 'write_file', 'read_file', 'no_such_tool', ''];

/** Raw tool arguments: valid JSON for some tool, code fences, prose, truncated JSON, arrays, junk. */
export const rawArguments = fc.oneof(
  fc.constantFrom(
    '{"label":"x"}',
    '{"seconds": "0.01"}',
    '{"seconds": 1e9}',
    '{"time": "+275760-09-13T00:00:00.000Z"}',
    '{"time": "not a date"}',
    '{"old_text": "", "new_text": "- note"}',
    '```json\n{"old_text": "", "new_text": "- fenced"}\n```',
    'Sure! {"label": "in prose"} hope that helps',
    '{"path": "../../etc/passwd"}',
    '{"path": "a.txt", "content": "hi"}',
    '{"label": ',
    '[1,2,3]',
    'null',
    '',
  ),
  anyJson.map((v) => JSON.stringify(v)),
  fc.string({ maxLength: 50 }),
);

/** Text as a model sends it, including a huge single "word" (a long run without whitespace). */
export const oddText = fc.oneof(
  fc.string({ maxLength: 40 }),
  fc.constantFrom('', ' ', '\u0000', '<script>alert(1)</script>'),
  fc.integer({ min: 2_000, max: 20_000 }).map((n) => 'y'.repeat(n)),
);

/** A usage object as OpenAI-compatible servers send it: fields missing, fractional, negative. */
export const oddOpenAIUsage = fc.option(fc.record({ prompt_tokens: oddCount, completion_tokens: oddCount, total_tokens: oddCount }, { requiredKeys: [] }), {
  nil: undefined,
});

/** What a tool's execute() may return: text, objects with odd metadata, non-strings, or a throw. */
export const oddToolOutput = fc.oneof(
  fc.string({ maxLength: 30 }).map((text) => ({ kind: 'text' as const, text })),
  fc.integer({ min: 10_000, max: 70_000 }).map((n) => ({ kind: 'text' as const, text: 'z'.repeat(n) })),
  fc
    .record({ text: fc.oneof(fc.string(), anyJson), metadata: fc.oneof(anyJson, fc.dictionary(fc.string({ maxLength: 10 }), anyJson, { maxKeys: 4 })) })
    .map((o) => ({ kind: 'object' as const, value: o })),
  fc.constantFrom('undefined', 'number', 'throw').map((kind) => ({ kind })),
);
