/** MCP elicitation as a wait (agent/elicitations.ts): its wait id, its answer's shape, and content checked against the requested schema. */
import { InputRejectedError, checkElicitContent, checkRequestedSchema, Elicitations, parseWaitAnswer, parseWaitId } from '../../agent/index';

const schema = {
  type: 'object',
  properties: {
    name: { type: 'string', minLength: 2 },
    email: { type: 'string', format: 'email' },
    age: { type: 'integer', minimum: 1, maximum: 100 },
    ok: { type: 'boolean' },
    pet: {
      type: 'string',
      oneOf: [
        { const: 'cat', title: 'Cat' },
        { const: 'dog', title: 'Dog' },
      ],
    },
    tools: { type: 'array', maxItems: 2, items: { type: 'string', enum: ['a', 'b', 'c'] } },
  },
  required: ['name'],
};

const refusal = (f: () => void) => {
  try {
    f();
  } catch (err) {
    expect(err).toBeInstanceOf(InputRejectedError);
    return (err as InputRejectedError).message;
  }
  throw new Error('not refused');
};

test('an elicitation wait id names the batch, the call (dashes and all) and the question number', () => {
  expect(parseWaitId('elicit-12-call_0-1-3')).toEqual({ kind: 'elicitation', seq: 12, toolCallId: 'call_0-1', n: 3 });
  expect(parseWaitId('approval-12-call_0')).toMatchObject({ kind: 'approval' });
});

test('an answer is an action; content only with accept', () => {
  expect(parseWaitAnswer({ waitId: 'elicit-1-c-1', answer: { action: 'accept', content: { name: 'Ana' } } }).answer.action).toBe('accept');
  expect(parseWaitAnswer({ waitId: 'elicit-1-c-1', answer: { action: 'cancel' } }).answer.action).toBe('cancel');
  expect(refusal(() => parseWaitAnswer({ waitId: 'elicit-1-c-1', answer: { action: 'decline', content: {} } }))).toMatch(/"action": "accept"/);
  expect(refusal(() => parseWaitAnswer({ waitId: 'elicit-1-c-1', answer: { text: 'hi' } }))).toMatch(/\(elicitation\)/);
  expect(refusal(() => parseWaitAnswer({ waitId: 'question-1', answer: { action: 'accept' } }))).toMatch(/\(question\)/);
});

test('content is checked against the requested schema, every problem named', () => {
  expect(() => checkElicitContent('w', schema, { name: 'Ana', email: 'a@b.co', age: 3, ok: false, pet: 'dog', tools: ['a', 'c'] })).not.toThrow();
  const message = refusal(() => checkElicitContent('w', schema, { email: 'x', age: 2.5, ok: 'yes', pet: 'fish', tools: ['a', 'z'], extra: 1 }));
  for (const p of [
    'name is required',
    'email must be an email address',
    'age must be an integer',
    'ok must be true or false',
    'pet must be one of cat, dog',
    'tools has z, not among a, b, c',
    'extra is not asked for',
  ])
    expect(message).toContain(p);
  expect(refusal(() => checkElicitContent('w', schema, { name: 'A', tools: ['a', 'b', 'c'] }))).toMatch(
    /name must have at least 2 characters; tools must have at most 2 items/,
  );
});

test('a schema must be an object schema, and small', () => {
  expect(refusal(() => checkRequestedSchema({ type: 'string' }))).toMatch(/"type": "object"/);
  expect(refusal(() => checkRequestedSchema({ type: 'object', properties: { a: { description: 'x'.repeat(40_000) } } }))).toMatch(/at most 32768/);
});

test('the same question opened twice is one wait; its answer stays with it', () => {
  const book = new Elicitations();
  const q = { toolCallId: 'c', toolName: 't', batchSeq: 4, n: 1, message: 'Name?', requestedSchema: schema, openedAt: 'then' };
  const e = book.add(q);
  expect(e.waitId).toBe('elicit-4-c-1');
  book.answer(e.waitId, { action: 'decline', at: 'now', door: 'rest' });
  expect(book.add(q).answer).toEqual({ action: 'decline', at: 'now', door: 'rest' });
  expect(book.open(4)).toEqual([]);
});
