/** The gateway's routes on its app: one place that lists what the gateway serves. */
import type { Hono } from 'hono';
import { type GatewayEnv, type GatewayOptions, createGatewayApp } from './gateway-app';
import { mountA2aRoutes } from './routes/a2a-routes';
import { mountAgUiRoutes } from './routes/ag-ui-routes';
import { mountAgentRoutes } from './routes/agents-routes';
import { mountEventsRoutes } from './routes/events-routes';
import { mountMcpRoutes } from './routes/mcp-routes';
import { mountPageRoutes } from './routes/page-routes';

export function buildGateway(options: GatewayOptions): Hono<GatewayEnv> {
  const app = createGatewayApp(options);
  mountAgentRoutes(app, options.agents);
  mountAgUiRoutes(app, options);
  mountEventsRoutes(app, options);
  mountMcpRoutes(app, options);
  mountA2aRoutes(app, options);
  mountPageRoutes(app);
  return app;
}
