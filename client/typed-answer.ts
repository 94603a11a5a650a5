/**
 * Typed answers on the client side: a zod schema becomes the input's `responseSchema` (its JSON
 * Schema), and the answer of the turn is parsed back with the same zod schema, so the caller gets a
 * value of the schema's type or an error that says why not.
 */
import { z } from 'zod';
import type { ResponseSchema, TurnOutcome } from '../agent/index';

/** The `ask` options of a typed answer. */
export interface TypedAskOptions<S extends z.ZodType> {
  /** What the answer must be. Its JSON Schema (for the JSON the model writes: the schema's input side) goes to the agent. */
  schema: S;
  /** The schema's name for the provider (letters, digits, `_` and `-`, ≤ 64); default `answer`. */
  name?: string;
}

/** An answered turn with its parsed value. */
export type TypedOutcome<T> = Extract<TurnOutcome, { status: 'answered' }> & { value: T };

/** The turn did not end in a typed answer (an error, a stop, an interrupt…), or its answer does not parse. */
export class TypedAnswerError extends Error {
  constructor(
    message: string,
    /** How the turn ended. */
    readonly outcome: TurnOutcome,
  ) {
    super(message);
    this.name = new.target.name;
  }
}

/** The input field for `schema`: its JSON Schema as the model must write it (before transforms and defaults). */
export function responseSchemaFor(schema: z.ZodType, name?: string): ResponseSchema {
  const json = z.toJSONSchema(schema, { target: 'draft-2020-12', io: 'input' }) as Record<string, unknown>;
  delete json.$schema;
  return { schema: json, ...(name !== undefined ? { name } : {}) };
}

/** The answer's value, parsed with `schema`; throws TypedAnswerError when the turn has none. */
export function typedOutcome<S extends z.ZodType>(outcome: TurnOutcome, schema: S): TypedOutcome<z.output<S>> {
  const { inputSeq } = outcome;
  if (outcome.status !== 'answered') {
    const why = outcome.status === 'error' ? `${outcome.error.code}: ${outcome.error.message}` : outcomeWord(outcome);
    throw new TypedAnswerError(`The turn for input #${inputSeq} ended without a typed answer (${why}).`, outcome);
  }
  const text = outcome.answer.contents.join('');
  let json: unknown;
  try {
    json = JSON.parse(text);
  } catch {
    throw new TypedAnswerError(
      `The answer to input #${inputSeq} is not JSON (was it sent without a schema, to a worker without typed answers?): ${text.slice(0, 200)}`,
      outcome,
    );
  }
  const parsed = schema.safeParse(json);
  if (!parsed.success) {
    const issues = parsed.error.issues.map((i) => `${i.path.join('.') || '(answer)'}: ${i.message}`).join('; ');
    throw new TypedAnswerError(`The answer to input #${inputSeq} does not match the schema: ${issues}`, outcome);
  }
  return { ...outcome, value: parsed.data };
}

function outcomeWord(outcome: Exclude<TurnOutcome, { status: 'answered' | 'error' }>): string {
  switch (outcome.status) {
    case 'asked':
      return `the model asked: ${outcome.question}`;
    case 'ignored':
      return `ignored: ${outcome.reason}`;
    default:
      return outcome.status;
  }
}
