/**
 * The REST API as one OpenAPIHono app: each route is declared once (`createRoute`, with the zod
 * schemas of api-schemas.ts), and that declaration both registers the route with its validators and
 * describes it in /openapi.json (OpenAPI 3.1). A body, path or query that does not match its schema is
 * answered 400 here, before anything reaches an agent.
 */
import { OpenAPIHono, type RouteConfig, extendZodWithOpenApi } from '@hono/zod-openapi';
import { type ZodType, z } from 'zod';
import { JsonValue } from '../agent/index';
import { ErrorBody } from './api-schemas';
import type { GatewayEnv } from './gateway-app';
import { HttpError } from './http-errors';

export type ApiApp = OpenAPIHono<GatewayEnv>;

/** The API's version in its document; bump with an incompatible change of a route. */
export const API_VERSION = '1.0.0';

/** What each error status means on this API (the body is always ErrorBody). */
const ERROR_MEANING = {
  400: 'The request is malformed: bad JSON, or a body, path or query that does not match its schema (`issues` says where).',
  401: 'No valid bearer token.',
  403: 'A read-only token tried to change an agent.',
  404: 'No such agent (or input, or route).',
  409: 'Refused by the agent or Temporal: the agent exists, the tool call is not pending, the input was refused…',
  413: 'The request body (or the input) is over the limit.',
  415: 'The body is not JSON.',
  429: 'Temporal is overloaded: retry later.',
  503: "No worker polls the agent's task queue, or Temporal is unreachable.",
} as const;
export type ErrorStatus = keyof typeof ERROR_MEANING;

/** Error responses for a route's document: the listed statuses, plus those every route may answer. */
export function errorResponses(...statuses: ErrorStatus[]): RouteConfig['responses'] {
  const all = new Set<ErrorStatus>([400, 401, 429, 503, ...statuses]);
  return Object.fromEntries(
    [...all].sort().map((status) => [status, { description: ERROR_MEANING[status], content: { 'application/json': { schema: ErrorBody } } }]),
  );
}

/** A JSON response of a route's document. */
export function jsonResponse<S extends ZodType>(schema: S, description: string) {
  return { description, content: { 'application/json': { schema } } };
}

/** A JSON request body; `required: false` lets a client send none (an empty POST). */
export function jsonBody<S extends ZodType>(schema: S, required = true) {
  return { required, content: { 'application/json': { schema } } };
}

/**
 * A recursive schema needs a name, to be referred to rather than unrolled forever. zod 4 gives a schema
 * the prototype's methods when it is built, and ours may be built before the extension that adds
 * `.openapi()` is loaded: so the method is called through the prototype. It names the lazy schema itself.
 */
function nameRecursiveSchema(schema: ZodType, id: string): void {
  extendZodWithOpenApi(z); // a no-op once done
  const proto = z.ZodType.prototype as unknown as { openapi(this: ZodType, refId: string): ZodType };
  proto.openapi.call(schema, id);
}

/** The app the REST routes are declared on. Failed validation becomes a 400 ErrorBody naming the issues. */
export function createApiApp(): ApiApp {
  const api = new OpenAPIHono<GatewayEnv>({
    defaultHook: (result) => {
      if (result.success) return;
      const where = { json: 'body', param: 'path', query: 'query', header: 'header' }[result.target as string] ?? result.target;
      const issues = result.error.issues;
      const first = issues[0];
      const path = first?.path.length ? `${where}.${first.path.join('.')}` : where;
      throw new HttpError(400, 'BAD_REQUEST', `The request's ${where} does not match its schema (${path}: ${first?.message ?? 'invalid'}).`, issues);
    },
  });
  nameRecursiveSchema(JsonValue, 'JsonValue');
  api.openAPIRegistry.registerComponent('securitySchemes', 'bearer', {
    type: 'http',
    scheme: 'bearer',
    description:
      'LIVECONTEXT_GATEWAY_TOKEN (full) or LIVECONTEXT_GATEWAY_READ_TOKEN (read-only: GET routes only). None when the gateway runs without tokens (loopback only).',
  });
  return api;
}

/** The OpenAPI 3.1 document of every route declared on `api`. */
export function openApiDocument(api: ApiApp) {
  const doc = api.getOpenAPI31Document({
    openapi: '3.1.0',
    info: {
      title: 'livecontext gateway',
      version: API_VERSION,
      description:
        'Durable LLM agents on Temporal, over HTTP. Every route is a thin layer over AgentClient; the gateway keeps no state. ' +
        'Errors are `{ "error": { "code", "message" } }`.',
    },
    security: [{ bearer: [] }],
  });
  const nullable = new Set(
    Object.entries(doc.components?.schemas ?? {})
      .filter(([, schema]) => admitsNull(schema))
      .map(([name]) => `#/components/schemas/${name}`),
  );
  return dropRedundantNull(doc, nullable);
}

/** Whether a component schema itself accepts null (JsonValue does: null is a JSON value). */
function admitsNull(schema: unknown): boolean {
  const s = schema as { type?: unknown; anyOf?: unknown[]; oneOf?: unknown[] };
  return s.type === 'null' || (Array.isArray(s.type) && s.type.includes('null')) || [...(s.anyOf ?? []), ...(s.oneOf ?? [])].some(admitsNull);
}

/**
 * The generator writes a reference to a recursive schema that accepts null as `oneOf: [ref, null]`; for
 * a null both branches match, so `oneOf` (exactly one) would refuse every null inside a JSON value.
 * Such a reference is written as the plain reference: the schema it names admits null already.
 */
function dropRedundantNull<T>(node: T, nullable: ReadonlySet<string>): T {
  if (Array.isArray(node)) return node.map((n) => dropRedundantNull(n, nullable)) as T;
  if (!node || typeof node !== 'object') return node;
  const { oneOf } = node as { oneOf?: Array<{ $ref?: string; type?: string }> };
  if (oneOf?.length === 2 && Object.keys(node).length === 1) {
    const ref = oneOf.find((o) => o.$ref && nullable.has(o.$ref));
    if (ref && oneOf.some((o) => o.type === 'null' && Object.keys(o).length === 1)) return { $ref: ref.$ref } as T;
  }
  return Object.fromEntries(Object.entries(node).map(([k, v]) => [k, dropRedundantNull(v, nullable)])) as T;
}
