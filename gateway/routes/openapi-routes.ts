/** GET /openapi.json: the REST API's OpenAPI 3.1 document, generated from the routes' zod schemas. */
import type { Hono } from 'hono';
import type { GatewayEnv } from '../gateway-app';
import { type ApiApp, openApiDocument } from '../openapi';

export function mountOpenApiRoute(app: Hono<GatewayEnv>, api: ApiApp): void {
  let doc: ReturnType<typeof openApiDocument> | undefined;
  // Built on first request: the routes do not change while the gateway runs.
  app.get('/openapi.json', (c) => c.json((doc ??= openApiDocument(api))));
}
