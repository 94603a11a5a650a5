/**
 * Questions an MCP server asks the user in the middle of a tool call (MCP elicitation, form mode), as
 * waits of the agent: the activity running the call opens one by an update (`openElicitation`), the
 * person answers it through any door (`answerWait`, kind `elicitation`), and the activity reads the
 * answer by a query and gives it to the server as its ElicitResult. A wait is `elicit-<batch seq>-<toolCallId>-<n>`,
 * n counting the call's questions: a call run again after its worker died asks its n-th question again
 * and gets the answer already given, so nobody is asked twice.
 *
 * Open questions are kept in the workflow's memory (the updates that made them are in Temporal's history,
 * so replay rebuilds them) while the batch lasts; they are not carried over continue-as-new, which only
 * happens between steps, when no call runs.
 *
 * @example
 * const book = new Elicitations();
 * book.open({ toolCallId: 'call_1', toolName: 'mcp_ask', batchSeq: 7, n: 1, message: 'Name?', requestedSchema: {...} }, at);
 * book.answer('elicit-7-call_1-1', { action: 'accept', content: { name: 'Ana' } }, { door: 'rest', at });
 */
import { z } from 'zod';
import { InputRejectedError } from './errors';
import type { WaitAnswerRecord } from './waits';

/** The bounds of a question: its message and requested schema are shown to people, and kept in history. */
export const ELICITATION_MESSAGE_MAX_CHARS = 8192;
export const ELICITATION_SCHEMA_MAX_BYTES = 32 * 1024;
/** The bound of an accepted answer's content (its JSON). */
export const ELICITATION_CONTENT_MAX_BYTES = 64 * 1024;
/** Questions remembered per agent run (answered ones, to refuse a second answer); the oldest go first. */
const KEPT = 64;

export const ElicitAction = z.enum(['accept', 'decline', 'cancel']);
export type ElicitAction = z.infer<typeof ElicitAction>;

/** What the activity sends to open a question. */
export const OpenElicitation = z
  .object({
    toolCallId: z.string().min(1).max(200),
    /** The call's question number, from 1. */
    n: z.number().int().min(1).max(1000),
    message: z.string().max(ELICITATION_MESSAGE_MAX_CHARS),
    requestedSchema: z.record(z.string(), z.unknown()),
    /** The MCP server that asks (shown beside the question). */
    server: z.string().max(200).optional(),
  })
  .strict();
export type OpenElicitation = z.infer<typeof OpenElicitation>;

export interface ElicitationAnswer extends WaitAnswerRecord {
  action: ElicitAction;
  content?: Record<string, unknown>;
}

/** One question, open or answered, as the `elicitation` query gives it to the activity. */
export interface Elicitation extends OpenElicitation {
  waitId: string;
  toolName: string;
  batchSeq: number;
  openedAt: string;
  answer?: ElicitationAnswer;
}

export function elicitationWaitId(batchSeq: number, toolCallId: string, n: number): string {
  return `elicit-${batchSeq}-${toolCallId}-${n}`;
}

export class Elicitations {
  private readonly list: Elicitation[] = [];

  get(waitId: string): Elicitation | undefined {
    return this.list.find((e) => e.waitId === waitId);
  }

  /** The questions of `batchSeq` not yet answered, oldest first. */
  open(batchSeq: number): Elicitation[] {
    return this.list.filter((e) => e.batchSeq === batchSeq && !e.answer);
  }

  /** Opens a question, or gives the one opened before under the same id (a retried activity, a repeated update). */
  add(q: Omit<Elicitation, 'waitId' | 'answer'>): Elicitation {
    const waitId = elicitationWaitId(q.batchSeq, q.toolCallId, q.n);
    const known = this.get(waitId);
    if (known) return known;
    const e: Elicitation = { ...q, waitId };
    this.list.push(e);
    if (this.list.length > KEPT) this.list.splice(0, this.list.length - KEPT);
    return e;
  }

  answer(waitId: string, answer: ElicitationAnswer): void {
    const e = this.get(waitId);
    if (e) e.answer = answer;
  }
}

/** Checks a question's requested schema is what elicitation allows: an object of primitive fields, and small. */
export function checkRequestedSchema(schema: Record<string, unknown>): void {
  const bytes = JSON.stringify(schema).length;
  if (bytes > ELICITATION_SCHEMA_MAX_BYTES)
    throw new InputRejectedError('BAD_ELICITATION', `The requested schema is ${bytes} bytes; at most ${ELICITATION_SCHEMA_MAX_BYTES} are taken.`);
  if (schema.type !== 'object' || (schema.properties !== undefined && !isRecord(schema.properties)))
    throw new InputRejectedError('BAD_ELICITATION', 'The requested schema must be {"type": "object", "properties": {...}}.');
}

/**
 * Validates an accepted answer's content against the question's requested schema (the restricted JSON
 * schema of MCP elicitation: strings with length, format and enum; numbers and integers with bounds;
 * booleans; arrays of enum values); throws InputRejectedError('BAD_ANSWER') saying every problem.
 */
export function checkElicitContent(waitId: string, schema: Record<string, unknown>, content: Record<string, unknown>): void {
  const bytes = JSON.stringify(content).length;
  if (bytes > ELICITATION_CONTENT_MAX_BYTES)
    throw new InputRejectedError('BAD_ANSWER', `The content is ${bytes} bytes; at most ${ELICITATION_CONTENT_MAX_BYTES} are taken.`);
  const properties = isRecord(schema.properties) ? schema.properties : {};
  const required = Array.isArray(schema.required) ? schema.required.filter((r): r is string => typeof r === 'string') : [];
  const problems: string[] = [];
  for (const name of required) if (content[name] === undefined) problems.push(`${name} is required`);
  for (const [name, value] of Object.entries(content)) {
    const field = properties[name];
    if (!isRecord(field)) {
      problems.push(`${name} is not asked for (the fields are ${Object.keys(properties).join(', ') || 'none'})`);
      continue;
    }
    const problem = fieldProblem(field, value);
    if (problem) problems.push(`${name} ${problem}`);
  }
  if (problems.length) throw new InputRejectedError('BAD_ANSWER', `The content does not fit the question ${waitId}'s schema: ${problems.join('; ')}.`);
}

function fieldProblem(field: Record<string, unknown>, value: unknown): string | undefined {
  const allowed = enumValues(field);
  switch (field.type) {
    case 'string': {
      if (typeof value !== 'string') return 'must be a string';
      if (allowed && !allowed.includes(value)) return `must be one of ${allowed.join(', ')}`;
      if (typeof field.minLength === 'number' && value.length < field.minLength) return `must have at least ${field.minLength} characters`;
      if (typeof field.maxLength === 'number' && value.length > field.maxLength) return `must have at most ${field.maxLength} characters`;
      const format = typeof field.format === 'string' ? FORMATS[field.format] : undefined;
      if (format && !format.test(value)) return `must be ${field.format === 'email' ? 'an email address' : `a ${field.format}`}`;
      return undefined;
    }
    case 'number':
    case 'integer':
      if (typeof value !== 'number' || !Number.isFinite(value)) return 'must be a number';
      if (field.type === 'integer' && !Number.isInteger(value)) return 'must be an integer';
      if (typeof field.minimum === 'number' && value < field.minimum) return `must be at least ${field.minimum}`;
      if (typeof field.maximum === 'number' && value > field.maximum) return `must be at most ${field.maximum}`;
      return undefined;
    case 'boolean':
      return typeof value === 'boolean' ? undefined : 'must be true or false';
    case 'array': {
      if (!Array.isArray(value) || !value.every((v) => typeof v === 'string')) return 'must be a list of strings';
      const items = isRecord(field.items) ? enumValues(field.items) : undefined;
      const wrong = items ? value.filter((v) => !items.includes(v)) : [];
      if (wrong.length) return `has ${wrong.join(', ')}, not among ${items!.join(', ')}`;
      if (typeof field.minItems === 'number' && value.length < field.minItems) return `must have at least ${field.minItems} items`;
      if (typeof field.maxItems === 'number' && value.length > field.maxItems) return `must have at most ${field.maxItems} items`;
      return undefined;
    }
    default:
      return undefined; // a field type elicitation does not define: the server checks it
  }
}

/** `enum`, or the `const`s of `oneOf` / `anyOf` (titled enums). */
function enumValues(field: Record<string, unknown>): string[] | undefined {
  if (Array.isArray(field.enum)) return field.enum.map(String);
  const options = Array.isArray(field.oneOf) ? field.oneOf : Array.isArray(field.anyOf) ? field.anyOf : undefined;
  return options?.filter(isRecord).map((o) => String(o.const));
}

const FORMATS: Record<string, RegExp> = {
  email: /^[^\s@]+@[^\s@]+\.[^\s@]+$/,
  uri: /^[a-zA-Z][a-zA-Z0-9+.-]*:\S+$/,
  date: /^\d{4}-\d{2}-\d{2}$/,
  'date-time': /^\d{4}-\d{2}-\d{2}T\d{2}:\d{2}(:\d{2}(\.\d+)?)?(Z|[+-]\d{2}:\d{2})$/,
};

function isRecord(v: unknown): v is Record<string, unknown> {
  return typeof v === 'object' && v !== null && !Array.isArray(v);
}
