/** The gateway's routes on its app: one place that lists what the gateway serves. */
import type { Hono } from 'hono';
import { type GatewayEnv, type GatewayOptions, createGatewayApp } from './gateway-app';
import { mountPageRoutes } from './routes/page-routes';

export function buildGateway(options: GatewayOptions): Hono<GatewayEnv> {
  const app = createGatewayApp(options);
  mountPageRoutes(app);
  return app;
}
