/**
 * The JSON Patch (RFC 6902) that turns one JSON document into another, for STATE_DELTA events. Objects
 * are compared key by key; an array that changed is replaced whole (the states it serves hold short
 * lists, and a replace is never misapplied by a client whose copy differs in order).
 */
import type { JsonPatchOperation } from '@ag-ui/core';

type Json = null | boolean | number | string | Json[] | { [key: string]: Json };

/** RFC 6901: `~` and `/` in a key are escaped. */
const pointer = (path: string, key: string) => `${path}/${key.replace(/~/g, '~0').replace(/\//g, '~1')}`;

const isObject = (v: unknown): v is { [key: string]: Json } => typeof v === 'object' && v !== null && !Array.isArray(v);

function equal(a: Json, b: Json): boolean {
  return a === b || JSON.stringify(a) === JSON.stringify(b);
}

/** Operations that turn `from` into `to` (empty when equal). */
export function jsonPatch(from: Json, to: Json, path = ''): JsonPatchOperation[] {
  if (equal(from, to)) return [];
  if (!isObject(from) || !isObject(to)) return [{ op: 'replace', path, value: to }];
  const ops: JsonPatchOperation[] = [];
  for (const key of Object.keys(from)) {
    if (!(key in to)) ops.push({ op: 'remove', path: pointer(path, key) });
  }
  for (const [key, value] of Object.entries(to)) {
    if (!(key in from)) ops.push({ op: 'add', path: pointer(path, key), value });
    else ops.push(...jsonPatch(from[key], value, pointer(path, key)));
  }
  return ops;
}

export type { Json };
