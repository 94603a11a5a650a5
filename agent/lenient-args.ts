/**
 * "宽进严出" — lenient in, strict out: obvious damage to tool arguments is repaired first (a JSON
 * object wrapped in a Markdown code fence or in prose, numbers and booleans sent as strings where the
 * schema wants them), then the arguments are validated strictly. Anything still wrong is reported
 * with what to fix. Pure: used by activity tools and by in-workflow tools alike.
 */
import type { z } from 'zod';
import type { ToolCallRequest } from './entries';

export type LenientResult<T> = { ok: true; data: T; repairs: string[] } | { ok: false; message: string };

/** Parses raw argument text, repairing a code fence or surrounding prose. */
export function repairArgumentText(raw: string): { value: unknown; repair?: string } | { error: string } {
  const text = raw.trim() === '' ? '{}' : raw.trim();
  try {
    return { value: JSON.parse(text) };
  } catch (first) {
    const fenced = /^```[a-zA-Z0-9_-]*\s*\n?([\s\S]*?)\n?```$/.exec(text);
    if (fenced) {
      try {
        return { value: JSON.parse(fenced[1]), repair: 'removed a code fence around the arguments' };
      } catch {
        /* fall through */
      }
    }
    const start = text.indexOf('{');
    const end = text.lastIndexOf('}');
    if (start > 0 && end > start) {
      try {
        return { value: JSON.parse(text.slice(start, end + 1)), repair: 'ignored text around the JSON object' };
      } catch {
        /* fall through */
      }
    }
    return { error: (first as Error).message };
  }
}

/** Repairs, then validates with `schema`; coerces string-typed numbers and booleans the schema expects. */
export function parseToolArguments<S extends z.ZodType>(
  schema: S,
  call: Pick<ToolCallRequest, 'toolName' | 'rawArguments' | 'arguments'>,
): LenientResult<z.infer<S>> {
  const repairs: string[] = [];
  let value: unknown = call.arguments;
  if (value === undefined) {
    const parsed = repairArgumentText(call.rawArguments);
    if ('error' in parsed) {
      return { ok: false, message: `The arguments of ${call.toolName} are not valid JSON (${parsed.error}). Send one JSON object.` };
    }
    value = parsed.value;
    if (parsed.repair) repairs.push(parsed.repair);
  }
  if (value === null || typeof value !== 'object' || Array.isArray(value)) {
    return { ok: false, message: `The arguments of ${call.toolName} must be a JSON object.` };
  }
  value = structuredCloneJson(value);
  for (let round = 0; round < 20; round++) {
    const result = schema.safeParse(value);
    if (result.success) return { ok: true, data: result.data, repairs };
    const fix = result.error.issues.find((i) => i.code === 'invalid_type' && ['number', 'boolean', 'int'].includes(String(i.expected)));
    if (!fix || fix.code !== 'invalid_type' || !coerceAt(value, fix.path as PropertyKey[], String(fix.expected), repairs)) {
      const issues = result.error.issues.map((i) => `${i.path.join('.') || '(arguments)'}: ${i.message}`).join('; ');
      return { ok: false, message: `Invalid arguments for ${call.toolName}: ${issues}. Fix them and call it again.` };
    }
  }
  return { ok: false, message: `Invalid arguments for ${call.toolName}.` };
}

function coerceAt(root: unknown, path: PropertyKey[], expected: string, repairs: string[]): boolean {
  if (path.length === 0) return false;
  let parent = root as Record<PropertyKey, unknown>;
  for (const key of path.slice(0, -1)) parent = parent?.[key] as Record<PropertyKey, unknown>;
  const key = path[path.length - 1];
  const current = parent?.[key];
  if (typeof current !== 'string') return false;
  const text = current.trim();
  let next: unknown;
  if (expected === 'boolean') next = text === 'true' ? true : text === 'false' ? false : undefined;
  else next = text !== '' && Number.isFinite(Number(text)) ? Number(text) : undefined;
  if (next === undefined) return false;
  parent[key] = next;
  repairs.push(`read ${path.join('.')} "${current}" as ${expected === 'boolean' ? 'a boolean' : 'a number'}`);
  return true;
}

function structuredCloneJson<T>(value: T): T {
  return JSON.parse(JSON.stringify(value)) as T;
}
