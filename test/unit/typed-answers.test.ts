/**
 * Typed answers, the pure parts: the input's responseSchema is checked when sent and recorded on the
 * input's entry; an answer is parsed leniently (fences, prose, strings for numbers, extra keys,
 * the wrapper of a non-object root) and checked strictly; what cannot be repaired is listed.
 */
import { z } from 'zod';
import {
  Agent,
  AgentState,
  InputRejectedError,
  RESPONSE_SCHEMA_MAX_BYTES,
  parseInput,
  parseStructuredAnswer,
  turnResponseSchema,
  wireResponseFormat,
} from '../../agent/index';
import { reaskMessages } from '../../activities/typed-answer';
import { responseSchemaFor, typedOutcome, TypedAnswerError } from '../../client/typed-answer';

const Verdict = z.object({ verdict: z.enum(['approve', 'reject']), score: z.number().int().min(0).max(10), reasons: z.array(z.string()).max(3) });
const verdict = responseSchemaFor(Verdict, 'verdict');

describe('the input', () => {
  test('carries the schema to its inbox item and its model_input entry', async () => {
    const agent = Agent.create({ config: { model: 'scripted:echo' }, clock: () => 0 });
    agent.enqueueInput({ text: 'judge it', responseSchema: verdict });
    expect(agent.inbox[0].responseSchema).toEqual(verdict);
    await agent.doStep({ callModel: async () => Promise.reject(new Error('not called')), executeTool: async () => Promise.reject(new Error('not called')) });
    const entry = agent.state.entries[agent.state.entries.length - 1];
    expect(entry).toMatchObject({ kind: 'model_input', responseSchema: verdict });
    expect(turnResponseSchema(agent.state.entries)).toEqual(verdict);
  });

  test('is refused with a clear reason when the schema cannot be used', () => {
    const reason = (responseSchema: unknown) => {
      try {
        parseInput({ text: 'x', responseSchema });
        return 'accepted';
      } catch (err) {
        expect(err).toBeInstanceOf(InputRejectedError);
        return `${(err as InputRejectedError).code}: ${(err as Error).message}`;
      }
    };
    expect(reason({ schema: { type: 'object' } })).toBe('accepted');
    expect(reason({ schema: { type: 'nonsense' } })).toMatch(/^MALFORMED_INPUT: .*responseSchema\.schema: it is not a JSON Schema.*Unsupported type: nonsense/);
    expect(reason({ schema: { type: 'object', description: 'x'.repeat(RESPONSE_SCHEMA_MAX_BYTES) } })).toMatch(
      /^MALFORMED_INPUT: .*responseSchema\.schema: it is \d+ bytes; the limit is 16384/,
    );
    expect(reason({ name: 'has spaces', schema: { type: 'object' } })).toMatch(/^MALFORMED_INPUT: .*responseSchema\.name/);
    expect(reason({ schema: 'object' })).toMatch(/^MALFORMED_INPUT: .*responseSchema\.schema/);
    expect(reason({ schema: { type: 'object' }, strict: true })).toMatch(/^MALFORMED_INPUT: .*Unrecognized key/);
  });

  test('a turn without a schema has none, also after a typed one', () => {
    const s = new AgentState(() => 0);
    s.appendModelInput({ sections: [{ title: 'Input', content: 'typed' }], responseSchema: verdict });
    s.appendModelOutput({ contents: ['{}'], toolCalls: [], invocation: { providerId: 'p', specification: 's', model: 'm' } });
    expect(turnResponseSchema(s.entries)).toEqual(verdict);
    s.appendModelInput({ sections: [{ title: 'Input', content: 'free' }] });
    expect(turnResponseSchema(s.entries)).toBeUndefined();
  });
});

describe('parseStructuredAnswer', () => {
  const good = { verdict: 'approve', score: 7, reasons: ['clear'] };

  test('a valid answer is recorded as compact JSON, with no repairs', () => {
    expect(parseStructuredAnswer(JSON.stringify(good, null, 2), verdict)).toEqual({ ok: true, value: good, json: JSON.stringify(good), repairs: [] });
  });

  test('a code fence, prose around the JSON, a number as a string and a key the schema forbids are repaired', () => {
    const text = 'Here is my verdict:\n```json\n{"verdict": "approve", "score": "7", "reasons": ["clear"], "mood": "good"}\n```\nThanks.';
    const closed = { schema: { ...verdict.schema, additionalProperties: false } };
    const result = parseStructuredAnswer(text, closed);
    expect(result).toMatchObject({ ok: true, value: good, json: JSON.stringify(good) });
    expect(result.ok && result.repairs).toEqual(['removed a code fence around the JSON', 'read score "7" as a number', 'dropped mood (not in the schema)']);
    expect(parseStructuredAnswer(`Sure! ${JSON.stringify(good)} Hope that helps.`, verdict)).toMatchObject({
      ok: true,
      repairs: ['ignored text around the JSON'],
    });
  });

  test('what cannot be repaired is listed, path by path', () => {
    expect(parseStructuredAnswer('I approve.', verdict)).toEqual({ ok: false, issues: 'the answer is not JSON' });
    const bad = parseStructuredAnswer('{"verdict": "maybe", "score": 11, "reasons": []}', verdict);
    expect(bad.ok).toBe(false);
    expect(!bad.ok && bad.issues).toMatch(/^verdict: Invalid option: expected one of "approve"\|"reject"; score: Too big: expected number to be <=10$/);
    expect(!parseStructuredAnswer('{"verdict": "approve", "score": "seven", "reasons": []}', verdict).ok).toBe(true);
  });

  test('a schema whose root is not an object is sent wrapped, and its answer unwrapped', () => {
    const list = responseSchemaFor(z.array(z.object({ name: z.string(), children: z.array(z.string()) })));
    const wire = wireResponseFormat(list);
    expect(wire).toMatchObject({
      name: 'answer',
      wrapped: true,
      schema: { type: 'object', required: ['value'], properties: { value: { $ref: '#/$defs/value' } }, $defs: { value: { type: 'array' } } },
    });
    expect(parseStructuredAnswer('{"value": [{"name": "a", "children": []}]}', list)).toMatchObject({ ok: true, json: '[{"name":"a","children":[]}]' });
    // The value given unwrapped is taken too.
    expect(parseStructuredAnswer('[{"name": "a", "children": ["b"]}]', list)).toMatchObject({ ok: true, value: [{ name: 'a', children: ['b'] }] });
  });

  test('references into a wrapped schema follow it into the wrapper', () => {
    type Node = { name: string; next?: Node[] };
    const NodeList: z.ZodType<Node[]> = z.array(z.lazy(() => z.object({ name: z.string(), next: NodeList.optional() })));
    const rs = responseSchemaFor(NodeList);
    const wire = wireResponseFormat(rs);
    expect(JSON.stringify(wire.schema)).toContain('"next":{"$ref":"#/$defs/value"}');
    expect(z.fromJSONSchema(wire.schema as Parameters<typeof z.fromJSONSchema>[0]).safeParse({ value: [{ name: 'a', next: [{ name: 'b' }] }] }).success).toBe(
      true,
    );
    expect(parseStructuredAnswer('[{"name": "a", "next": [{"name": 2}]}]', rs)).toMatchObject({ ok: false, issues: expect.stringContaining('0.next.0.name') });
  });

  test('an object schema is sent as it is, without $schema', () => {
    expect(wireResponseFormat(verdict)).toEqual({ name: 'verdict', schema: verdict.schema, wrapped: false });
    expect(verdict.schema).not.toHaveProperty('$schema');
  });
});

describe('the re-ask', () => {
  test('appends the answer and what is wrong with it, for this request only', () => {
    const invocation = { providerId: 'openai', specification: 'openai-chat-completions', model: 'gpt' };
    const messages = reaskMessages([], { contents: ['{"verdict": "maybe"}'], toolCalls: [] }, 'verdict: Invalid option', 4, invocation);
    expect(messages).toMatchObject([
      { kind: 'model_output', seq: 5, contents: ['{"verdict": "maybe"}'], toolCalls: [], invocation },
      {
        kind: 'model_input',
        seq: 6,
        sections: [{ title: 'Input', content: expect.stringContaining('does not match the required JSON schema: verdict: Invalid option.') }],
      },
    ]);
  });
});

describe('the client side', () => {
  const answered = (text: string) => ({
    inputSeq: 3,
    status: 'answered' as const,
    inputEntrySeq: 1,
    answer: {
      kind: 'model_output' as const,
      seq: 2,
      timestamp: '',
      contents: [text],
      toolCalls: [],
      invocation: { providerId: 'p', specification: 's', model: 'm' },
    },
  });

  test('the value is parsed with the zod schema (transforms included)', () => {
    const Shouting = z.object({ word: z.string().transform((w) => w.toUpperCase()) });
    expect(typedOutcome(answered('{"word":"hi"}'), Shouting).value).toEqual({ word: 'HI' });
  });

  test('a turn without a typed answer is an error that says how it ended', () => {
    const error = {
      inputSeq: 3,
      status: 'error' as const,
      error: { code: 'ModelError.InvalidStructuredOutput', message: 'no match', runState: 'PendingInput' as const, at: '' },
    };
    expect(() => typedOutcome(error, Verdict)).toThrow(
      new TypedAnswerError('The turn for input #3 ended without a typed answer (ModelError.InvalidStructuredOutput: no match).', error),
    );
    expect(() => typedOutcome({ inputSeq: 3, status: 'stopped' }, Verdict)).toThrow(/ended without a typed answer \(stopped\)/);
    expect(() => typedOutcome(answered('plain words'), Verdict)).toThrow(/is not JSON/);
    expect(() => typedOutcome(answered('{"verdict":"approve"}'), Verdict)).toThrow(/does not match the schema: score: /);
  });
});
