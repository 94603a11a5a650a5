/** Lenient in, strict out: tool arguments are repaired where the damage is obvious, then validated strictly. */
import { z } from 'zod';
import { parseToolArguments, repairArgumentText } from '../../agent/lenient-args';

const Args = z.object({ path: z.string(), count: z.number().int().optional(), dry_run: z.boolean().optional() }).strict();
const call = (rawArguments: string, args?: Record<string, unknown>) => ({
  toolName: 'copy',
  rawArguments,
  ...(args ? { arguments: args as never } : {}),
});

describe('repairArgumentText', () => {
  test('valid JSON is read as it is, blank text as an empty object', () => {
    expect(repairArgumentText('{"a": [1, 2]}')).toEqual({ value: { a: [1, 2] } });
    expect(repairArgumentText('  \n ')).toEqual({ value: {} });
  });

  test('a Markdown code fence around the object is removed, with or without a language', () => {
    expect(repairArgumentText('```json\n{"a": 1}\n```')).toEqual({ value: { a: 1 }, repair: 'removed a code fence around the arguments' });
    expect(repairArgumentText('```\n{"a": 1}\n```')).toEqual({ value: { a: 1 }, repair: 'removed a code fence around the arguments' });
  });

  test('prose around the object is ignored', () => {
    expect(repairArgumentText('Sure! Here are the arguments: {"a": {"b": 2}} Hope this helps.')).toEqual({
      value: { a: { b: 2 } },
      repair: 'ignored text around the JSON object',
    });
  });

  test('text with no JSON object in it is an error naming what JSON.parse found', () => {
    const out = repairArgumentText('path = a.txt');
    expect(out).toEqual({ error: expect.stringMatching(/JSON/) });
    expect(repairArgumentText('```json\n{"a": \n```')).toHaveProperty('error');
  });
});

describe('parseToolArguments', () => {
  test('valid arguments pass with no repairs', () => {
    expect(parseToolArguments(Args, call('{"path": "a.txt", "count": 2}'))).toEqual({ ok: true, data: { path: 'a.txt', count: 2 }, repairs: [] });
  });

  test('already parsed arguments are used instead of the raw text, and are not changed', () => {
    const parsed = { path: 'b.txt', count: '4' };
    expect(parseToolArguments(Args, call('not even JSON', parsed))).toEqual({
      ok: true,
      data: { path: 'b.txt', count: 4 },
      repairs: ['read count "4" as a number'],
    });
    expect(parsed.count).toBe('4');
  });

  test('numbers and booleans sent as strings are read as the schema wants, each repair named', () => {
    const out = parseToolArguments(Args, call('```json\n{"path": "a", "count": " 12 ", "dry_run": "false"}\n```'));
    expect(out).toEqual({
      ok: true,
      data: { path: 'a', count: 12, dry_run: false },
      repairs: ['removed a code fence around the arguments', 'read count " 12 " as a number', 'read dry_run "false" as a boolean'],
    });
  });

  test('nested fields and array items are coerced too', () => {
    const Nested = z.object({ opts: z.object({ retries: z.number() }), sizes: z.array(z.number()) });
    const out = parseToolArguments(Nested, call('{"opts": {"retries": "3"}, "sizes": ["1", "2.5"]}'));
    expect(out).toMatchObject({ ok: true, data: { opts: { retries: 3 }, sizes: [1, 2.5] } });
    expect(out.ok && out.repairs).toEqual(['read opts.retries "3" as a number', 'read sizes.0 "1" as a number', 'read sizes.1 "2.5" as a number']);
  });

  test('strings that are not numbers or booleans are not guessed at: the error says what to fix', () => {
    const out = parseToolArguments(Args, call('{"path": "a", "count": "many", "dry_run": "yes"}'));
    expect(out.ok).toBe(false);
    expect(!out.ok && out.message).toMatch(/^Invalid arguments for copy: count: .+; dry_run: .+\. Fix them and call it again\.$/);
  });

  test('a coerced value must still pass the schema (an integer field given "2.5")', () => {
    const out = parseToolArguments(Args, call('{"path": "a", "count": "2.5"}'));
    expect(!out.ok && out.message).toMatch(/Invalid arguments for copy: count: /);
  });

  test('missing and unknown fields are reported, never filled in or dropped', () => {
    const out = parseToolArguments(Args, call('{"count": 1, "extra": true}'));
    expect(!out.ok && out.message).toMatch(/path: .*extra|extra.*path: /);
  });

  test('arguments that are not JSON, or not an object, are refused with what to send', () => {
    expect(parseToolArguments(Args, call('{"path": '))).toEqual({
      ok: false,
      message: expect.stringMatching(/^The arguments of copy are not valid JSON \(.+\)\. Send one JSON object\.$/),
    });
    for (const raw of ['[1, 2]', '42', '"a.txt"', 'null']) {
      expect(parseToolArguments(Args, call(raw))).toEqual({ ok: false, message: 'The arguments of copy must be a JSON object.' });
    }
  });
});
