/**
 * What one MCP server may bring to a worker. A server's tool list is read page by page (tools/list with
 * `nextCursor`), so a server that never stops paging would hold a worker's start-up forever and fill its
 * memory; and a tool's input schema is offered to the model on every call, recorded in the agent's tool
 * catalog and written into exports, so a schema nested thousands of levels deep makes every one of them
 * huge (a pretty-printed export grows with the square of the depth). Both are bounded here: listing
 * fails with a message naming the server, and a tool whose schema is too deep or too large is left out,
 * with a warning naming it.
 */

/** Bounds on listing one server's tools (at start-up, in `mcp list`, after tools/list_changed). */
export interface McpListLimits {
  /** tools/list requests per listing (each page one). */
  maxPages: number;
  /** Tools in all pages together. */
  maxTools: number;
  /** Time for the whole listing, every page together. */
  timeoutMs: number;
}

export const DEFAULT_MCP_LIST_LIMITS: McpListLimits = { maxPages: 100, maxTools: 1000, timeoutMs: 60_000 };

/** Nesting of a tool's input schema, counted in JSON objects and arrays (`properties` and its child are two). */
export const MAX_INPUT_SCHEMA_DEPTH = 32;
/** A tool's input schema as compact JSON. */
export const MAX_INPUT_SCHEMA_BYTES = 64 * 1024;

/** Why a tool's input schema is not offered, or undefined when it is within bounds. Never recursive. */
export function inputSchemaProblem(schema: unknown): string | undefined {
  let deepest = 0;
  const stack: Array<[unknown, number]> = [[schema, 1]];
  while (stack.length) {
    const [value, depth] = stack.pop()!;
    if (!value || typeof value !== 'object') continue;
    deepest = Math.max(deepest, depth);
    if (deepest > MAX_INPUT_SCHEMA_DEPTH) return `its input schema is nested more than ${MAX_INPUT_SCHEMA_DEPTH} levels deep`;
    for (const child of Array.isArray(value) ? value : Object.values(value)) if (child && typeof child === 'object') stack.push([child, depth + 1]);
  }
  const bytes = Buffer.byteLength(JSON.stringify(schema ?? {}));
  if (bytes > MAX_INPUT_SCHEMA_BYTES) return `its input schema is ${Math.round(bytes / 1024)} KiB as JSON (at most ${MAX_INPUT_SCHEMA_BYTES / 1024} KiB)`;
  return undefined;
}
