/** Every REST route over agents, on one OpenAPIHono app (so /openapi.json describes them all), and the document. */
import type { Hono } from 'hono';
import type { AgentClient } from '../../client/agent-client';
import type { GatewayEnv } from '../gateway-app';
import { type ApiApp, createApiApp } from '../openapi';
import { mountAgentAutonomyRoutes } from './agents-autonomy-routes';
import { mountAgentControlRoutes } from './agents-control-routes';
import { mountAgentForkRoutes } from './agents-fork-routes';
import { mountAgentInputRoutes } from './agents-input-routes';
import { mountAgentInspectRoutes } from './agents-inspect-routes';
import { mountAgentLifecycleRoutes } from './agents-lifecycle-routes';
import { mountAgentReadRoutes } from './agents-read-routes';
import { mountAgentRewindRoutes } from './agents-rewind-routes';
import { mountAgentWaitRoutes } from './agents-wait-routes';
import { mountAgentWidgetRoutes } from './agents-widget-routes';
import { mountOpenApiRoute } from './openapi-routes';
import { describeStreamingRoutes } from './streaming-routes-doc';

/** The REST API (its routes registered here; /openapi.json also describes the streaming ones); tests read its routes. */
export function agentsApi(agents: AgentClient): ApiApp {
  const api = createApiApp();
  mountAgentLifecycleRoutes(api, agents);
  mountAgentReadRoutes(api, agents);
  mountAgentInspectRoutes(api, agents);
  mountAgentInputRoutes(api, agents);
  mountAgentControlRoutes(api, agents);
  mountAgentWaitRoutes(api, agents);
  mountAgentWidgetRoutes(api, agents);
  mountAgentAutonomyRoutes(api, agents);
  mountAgentRewindRoutes(api, agents);
  mountAgentForkRoutes(api, agents);
  describeStreamingRoutes(api);
  return api;
}

export function mountAgentRoutes(app: Hono<GatewayEnv>, agents: AgentClient): void {
  const api = agentsApi(agents);
  app.route('/', api);
  mountOpenApiRoute(app, api);
}
