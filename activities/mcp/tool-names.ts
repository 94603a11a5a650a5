/**
 * MCP tool names as the providers accept them: `<server>__<tool>`, only `[a-zA-Z0-9_-]`, at most 64
 * characters, unique. A name cut to fit ends in a short hash of the original, so two long names that
 * share their first 55 characters stay apart, and the same input always gives the same name.
 */
import { createHash } from 'node:crypto';

export const MAX_TOOL_NAME = 64;

export function sanitizeNamePart(text: string): string {
  const cleaned = text.replace(/[^a-zA-Z0-9_-]/g, '_');
  return cleaned || '_';
}

/** `<server>__<tool>`, sanitized and cut to 64 characters. */
export function namespacedToolName(server: string, tool: string): string {
  const full = `${sanitizeNamePart(server)}__${sanitizeNamePart(tool)}`;
  if (full.length <= MAX_TOOL_NAME) return full;
  const hash = createHash('sha256').update(`${server}\0${tool}`).digest('hex').slice(0, 8);
  return `${full.slice(0, MAX_TOOL_NAME - hash.length - 1)}_${hash}`;
}

/**
 * Names for one server's tools, in order: each distinct from the others and from `taken` (names other
 * sources hold); a clash (`a.b` and `a_b` both become `a_b`) gets `_2`, `_3`… within the 64 characters.
 */
export function namespacedToolNames(server: string, tools: readonly string[], taken: ReadonlySet<string> = new Set()): string[] {
  const used = new Set(taken);
  return tools.map((tool) => {
    const base = namespacedToolName(server, tool);
    let name = base;
    for (let n = 2; used.has(name); n++) name = `${base.slice(0, MAX_TOOL_NAME - String(n).length - 1)}_${n}`;
    used.add(name);
    return name;
  });
}
