/**
 * Typed answers: an input may carry a JSON Schema (`responseSchema`) that the final answer of its turn
 * must match. The schema enters history once, on the input's ModelInputEntry; each model call of the
 * turn reads it from there (the callModel activity has the entries anyway), so no activity input
 * carries it again. This file is pure: the checks an input gets, the schema as providers are sent it,
 * and the lenient parse ("宽进严出") of an answer against it.
 */
import { z } from 'zod';
import type { HistoryEntry } from './entries';

/** Largest accepted schema, in UTF-8 bytes of its JSON: it is in history, and in every request of the turn. */
export const RESPONSE_SCHEMA_MAX_BYTES = 16 * 1024;

/** The name providers are sent when the input gives none (OpenAI's `json_schema.name`). */
export const DEFAULT_RESPONSE_SCHEMA_NAME = 'answer';

/**
 * What the final answer of a turn must be: `schema` is a JSON Schema (draft 2020-12, as
 * `z.toJSONSchema` makes it); `name` names it to the provider (letters, digits, `_` and `-`, ≤ 64).
 */
export const ResponseSchema = z
  .object({
    name: z
      .string()
      .regex(/^[A-Za-z0-9_-]{1,64}$/, 'letters, digits, "_" and "-", at most 64')
      .optional(),
    schema: z.record(z.string(), z.unknown()),
  })
  .strict()
  .superRefine((rs, ctx) => {
    const problem = responseSchemaProblem(rs);
    if (problem) ctx.addIssue({ code: 'custom', path: ['schema'], message: problem });
  });
export type ResponseSchema = z.infer<typeof ResponseSchema>;

/** Why a schema cannot be used (too large, not JSON, not a JSON Schema zod can read), or undefined. */
export function responseSchemaProblem(rs: { schema: Record<string, unknown> }): string | undefined {
  let json: string;
  try {
    json = JSON.stringify(rs.schema);
  } catch (err) {
    return `it is not JSON (${(err as Error).message})`;
  }
  const bytes = new TextEncoder().encode(json).length;
  if (bytes > RESPONSE_SCHEMA_MAX_BYTES) return `it is ${bytes} bytes; the limit is ${RESPONSE_SCHEMA_MAX_BYTES}`;
  try {
    z.fromJSONSchema(rs.schema as Parameters<typeof z.fromJSONSchema>[0]);
  } catch (err) {
    return `it is not a JSON Schema this framework can check answers against (${(err as Error).message})`;
  }
  return undefined;
}

/** Keywords whose values are data, not schemas: a `pattern` inside them is no regular expression. */
const DATA_KEYWORDS = new Set(['enum', 'const', 'default', 'examples']);

/**
 * Every regular expression in a JSON Schema: `pattern` values and `patternProperties` keys. They come
 * from whoever sent the schema and run on the worker against the model's answer; see
 * activities/typed-answer-check.ts (bounded) and client/schema-patterns.ts (refused up front).
 */
export function schemaPatterns(schema: unknown): string[] {
  const found: string[] = [];
  const walk = (node: unknown): void => {
    if (Array.isArray(node)) return node.forEach(walk);
    if (node === null || typeof node !== 'object') return;
    for (const [key, value] of Object.entries(node)) {
      if (DATA_KEYWORDS.has(key)) continue;
      if (key === 'pattern' && typeof value === 'string') found.push(value);
      else if (key === 'patternProperties' && value !== null && typeof value === 'object' && !Array.isArray(value)) found.push(...Object.keys(value));
      walk(value);
    }
  };
  walk(schema);
  return found;
}

/** The response schema of the turn that `entries` end in: the one of its input, the last model input. */
export function turnResponseSchema(entries: readonly HistoryEntry[]): ResponseSchema | undefined {
  for (let i = entries.length - 1; i >= 0; i--) {
    const e = entries[i];
    if (e.kind === 'model_input') return e.responseSchema;
  }
  return undefined;
}

/**
 * The schema as providers are sent it. Both want an object at the root (Anthropic's tool input_schema
 * must be one; OpenAI's structured outputs expect one), so any other root is wrapped as the property
 * `value` of an object (`wrapped`), and the answer is unwrapped again when it is parsed.
 */
export interface WireResponseFormat {
  name: string;
  /** An object-rooted JSON Schema, without `$schema`. */
  schema: Record<string, unknown>;
  wrapped: boolean;
}

export const WRAPPED_VALUE_KEY = 'value';

export function wireResponseFormat(rs: ResponseSchema): WireResponseFormat {
  const { $schema: _dialect, ...schema } = rs.schema;
  const name = rs.name ?? DEFAULT_RESPONSE_SCHEMA_NAME;
  if (schema.type === 'object') return { name, schema, wrapped: false };
  // The wrapped schema becomes a definition, so its references to itself (`#`, `#/items`…) still resolve.
  const { $defs, ...inner } = schema as { $defs?: Record<string, unknown> };
  let def = WRAPPED_VALUE_KEY;
  while ($defs && def in $defs) def += '_';
  return {
    name,
    schema: {
      type: 'object',
      properties: { [WRAPPED_VALUE_KEY]: { $ref: `#/$defs/${def}` } },
      required: [WRAPPED_VALUE_KEY],
      additionalProperties: false,
      $defs: { ...$defs, [def]: rebaseRefs(inner, `#/$defs/${def}`) },
    },
    wrapped: true,
  };
}

/** References into the schema itself (`#`, `#/items`…) rebased onto `base`; those into `$defs` stay. */
function rebaseRefs(node: unknown, base: string): unknown {
  if (Array.isArray(node)) return node.map((n) => rebaseRefs(n, base));
  if (node === null || typeof node !== 'object') return node;
  return Object.fromEntries(
    Object.entries(node).map(([k, v]) => {
      if (k === '$ref' && typeof v === 'string' && v.startsWith('#') && !v.startsWith('#/$defs/')) return [k, `${base}${v.slice(1)}`];
      return [k, rebaseRefs(v, base)];
    }),
  );
}

export type StructuredAnswer =
  | { ok: true; value: unknown; /** The value as compact JSON: what history records. */ json: string; repairs: string[] }
  | { ok: false; /** What is wrong, for the model (re-ask) and for the error. */ issues: string };

/**
 * Reads an answer leniently, then checks it strictly: the JSON may sit in a code fence or in prose, be
 * wrapped (see wireResponseFormat) or not; strings where numbers or booleans belong are read as them,
 * and properties the schema forbids are dropped. What is still wrong is listed.
 */
export function parseStructuredAnswer(text: string, rs: ResponseSchema): StructuredAnswer {
  const repairs: string[] = [];
  const found = extractJson(text);
  if (!found) return { ok: false, issues: 'the answer is not JSON' };
  if (found.repair) repairs.push(found.repair);
  let value = found.value;
  const wire = wireResponseFormat(rs);
  if (wire.wrapped && isObject(value) && Object.keys(value).length === 1 && WRAPPED_VALUE_KEY in value) value = value[WRAPPED_VALUE_KEY];
  const schema = z.fromJSONSchema(rs.schema as Parameters<typeof z.fromJSONSchema>[0]);
  const root = { value }; // a parent for the coercions, so the root itself can be repaired too
  for (let round = 0; round < 50; round++) {
    const result = schema.safeParse(root.value);
    if (result.success) return { ok: true, value: root.value, json: JSON.stringify(root.value), repairs };
    if (!repairOne(root, result.error.issues, repairs)) return { ok: false, issues: describeIssues(result.error.issues) };
  }
  return { ok: false, issues: 'the answer could not be repaired' };
}

/** One repair for the first issue that has one; false when none has. */
function repairOne(root: { value: unknown }, issues: readonly z.core.$ZodIssue[], repairs: string[]): boolean {
  for (const issue of issues) {
    if (issue.code === 'invalid_type' && ['number', 'boolean', 'int'].includes(String(issue.expected))) {
      if (coerceAt(root, issue.path, String(issue.expected), repairs)) return true;
    }
    if (issue.code === 'unrecognized_keys') {
      const target = issue.path.reduce<unknown>((node, key) => (node as Record<PropertyKey, unknown>)?.[key], root.value);
      if (!isObject(target)) continue;
      for (const key of issue.keys) delete target[key];
      repairs.push(`dropped ${issue.keys.map((k) => [...issue.path, k].join('.')).join(', ')} (not in the schema)`);
      return true;
    }
  }
  return false;
}

/** A string where the schema wants a number or a boolean, read as one (as lenient-args does for tool arguments). */
function coerceAt(root: { value: unknown }, path: readonly PropertyKey[], expected: string, repairs: string[]): boolean {
  const full: PropertyKey[] = ['value', ...path];
  let parent = root as unknown as Record<PropertyKey, unknown>;
  for (const key of full.slice(0, -1)) parent = parent?.[key] as Record<PropertyKey, unknown>;
  const key = full[full.length - 1];
  const current = parent?.[key];
  if (typeof current !== 'string') return false;
  const text = current.trim();
  const next =
    expected === 'boolean'
      ? text === 'true'
        ? true
        : text === 'false'
          ? false
          : undefined
      : text !== '' && Number.isFinite(Number(text))
        ? Number(text)
        : undefined;
  if (next === undefined) return false;
  parent[key] = next;
  repairs.push(`read ${path.length ? path.join('.') : 'the answer'} "${current}" as ${expected === 'boolean' ? 'a boolean' : 'a number'}`);
  return true;
}

function describeIssues(issues: readonly z.core.$ZodIssue[]): string {
  const shown = issues.slice(0, 10).map((i) => `${i.path.length ? i.path.join('.') : '(answer)'}: ${i.message}`);
  return shown.join('; ') + (issues.length > shown.length ? `; and ${issues.length - shown.length} more` : '');
}

/** The JSON in `text`: all of it, inside a code fence, or the outermost object or array within prose. */
function extractJson(text: string): { value: unknown; repair?: string } | undefined {
  const trimmed = text.trim();
  const attempt = (candidate: string) => {
    try {
      return { value: JSON.parse(candidate) as unknown };
    } catch {
      return undefined;
    }
  };
  const whole = attempt(trimmed);
  if (whole) return whole;
  const fenced = /```[a-zA-Z0-9_-]*\s*\n?([\s\S]*?)\n?```/.exec(trimmed);
  const inFence = fenced ? attempt(fenced[1].trim()) : undefined;
  if (inFence) return { ...inFence, repair: 'removed a code fence around the JSON' };
  for (const [open, close] of [
    ['{', '}'],
    ['[', ']'],
  ]) {
    const start = trimmed.indexOf(open);
    const end = trimmed.lastIndexOf(close);
    const inner = start >= 0 && end > start ? attempt(trimmed.slice(start, end + 1)) : undefined;
    if (inner) return { ...inner, repair: 'ignored text around the JSON' };
  }
  return undefined;
}

function isObject(v: unknown): v is Record<string, unknown> {
  return v !== null && typeof v === 'object' && !Array.isArray(v);
}
