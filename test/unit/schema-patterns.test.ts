/**
 * Regular expressions in a typed answer's schema (issue 26 item B): a catastrophic one is refused by the
 * client before anything is sent; one that gets past that check is run against the answer in a thread
 * with a time limit, so the event loop that serves every agent of the worker goes on meanwhile.
 */
import { z } from 'zod';
import { InputRejectedError, schemaPatterns } from '../../agent/index';
import { checkStructuredAnswer } from '../../activities/typed-answer-check';
import { refuseUnsafePatterns, unsafePatterns } from '../../client/schema-patterns';
import { responseSchemaFor } from '../../client/typed-answer';

const withPattern = (pattern: string) => ({ schema: { type: 'object', properties: { code: { type: 'string', pattern } }, required: ['code'] } });

describe('at the door', () => {
  test('finds every pattern: pattern, patternProperties, nested in $defs and items; not inside data keywords', () => {
    const schema = {
      type: 'object',
      properties: { pattern: { type: 'string', pattern: 'a' }, list: { type: 'array', items: { $ref: '#/$defs/x' } } },
      patternProperties: { '^x-': { type: 'string' } },
      $defs: { x: { type: 'string', pattern: 'b', default: { pattern: 'not-a-pattern' } } },
      enum: [{ pattern: 'data' }],
    };
    expect(schemaPatterns(schema).sort()).toEqual(['^x-', 'a', 'b']);
  });

  test('the schema class of the issue, ^(a+)+$, is refused with a clear error; plain patterns pass', () => {
    expect(unsafePatterns(withPattern('^(a+)+$').schema)).toEqual(['^(a+)+$']);
    expect(unsafePatterns({ patternProperties: { '(x|y+)*z': {} } })).toEqual(['(x|y+)*z']);
    expect(unsafePatterns(withPattern('^\\d{4}-\\d{2}-\\d{2}$').schema)).toEqual([]);
    expect(unsafePatterns(withPattern('^(?=.*\\d).{8,}$').schema)).toEqual([]);
    // From a zod schema, as AgentClient.ask builds it.
    const rs = responseSchemaFor(z.object({ code: z.string().regex(/^(a+)+$/) }));
    let thrown: unknown;
    try {
      refuseUnsafePatterns({ responseSchema: rs });
    } catch (err) {
      thrown = err;
    }
    expect(thrown).toBeInstanceOf(InputRejectedError);
    expect(thrown).toMatchObject({ code: 'UNSAFE_PATTERN', message: expect.stringContaining('"^(a+)+$" can backtrack catastrophically') });
    expect(() => refuseUnsafePatterns({ responseSchema: withPattern('^[a-z]+$') })).not.toThrow();
    expect(() => refuseUnsafePatterns({})).not.toThrow();
  });
});

describe('on the worker', () => {
  test('a schema with patterns is checked in a thread: right answers pass, wrong ones are listed', async () => {
    const rs = withPattern('^[a-z]+$');
    expect(await checkStructuredAnswer('{"code":"abc"}', rs)).toMatchObject({ ok: true, value: { code: 'abc' }, json: '{"code":"abc"}' });
    expect(await checkStructuredAnswer('{"code":"ABC"}', rs)).toMatchObject({ ok: false, issues: expect.stringContaining('code') });
  });

  test('a catastrophic pattern that got past the door is stopped at the time limit while the event loop goes on', async () => {
    // (a|a)+ is exponential on "aaaa…!" and safe-regex2 does not see it: what a schema from an old client could carry.
    const rs = withPattern('^(a|a)+$');
    expect(unsafePatterns(rs.schema)).toEqual([]);
    let turns = 0;
    const ticker = setInterval(() => turns++, 5);
    const checking = checkStructuredAnswer(JSON.stringify({ code: `${'a'.repeat(40)}!` }), rs, 1500);
    // The event loop keeps turning while the thread backtracks: a timer here fires again and again.
    const seen = await new Promise<number>((resolve) => {
      const at = turns;
      const wait = setInterval(() => {
        if (turns >= at + 20) {
          clearInterval(wait);
          resolve(turns);
        }
      }, 5);
    });
    expect(seen).toBeGreaterThanOrEqual(20);
    const result = await checking;
    clearInterval(ticker);
    expect(result).toMatchObject({ ok: false, stopped: expect.stringContaining('took over 1500 ms, so it was stopped') });
  });
});
