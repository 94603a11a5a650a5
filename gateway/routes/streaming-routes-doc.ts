/**
 * The routes the gateway serves beside the REST API — the event stream, AG-UI, /mcp and /healthz — in
 * /openapi.json too. They are mounted on the gateway's own app (they answer SSE or JSON-RPC, not a zod
 * response), so here they are only described: `registerPath` puts them in the document without
 * registering a handler.
 */
import { z } from 'zod';
import { AgentPath } from '../api-schemas';
import { type ApiApp, errorResponses, jsonBody, jsonResponse } from '../openapi';

const SSE = (description: string) => ({
  description,
  content: {
    'text/event-stream': { schema: z.string().describe('AG-UI events as Server-Sent Events; each frame has an `id` to resume from with Last-Event-ID.') },
  },
});

const LastEventId = z.object({
  'last-event-id': z.string().max(2000).optional().describe('The `id` of the last frame received: the stream continues after it (on this gateway or another).'),
});

/** AG-UI's RunAgentInput, in outline (the full schema is @ag-ui/core's): the newest user message is the input. */
const RunAgentInput = z
  .looseObject({
    threadId: z.string().min(1).describe('The agent id (POST /ag-ui), or any thread id (POST /agents/{id}/ag-ui).'),
    runId: z.string().min(1).describe('A repeated POST of the same run follows its turn instead of starting another (idempotency key `ag-ui:<runId>`).'),
    messages: z.array(z.looseObject({ role: z.string(), content: z.unknown().optional() })),
  })
  .meta({ id: 'RunAgentInput' });

const JsonRpcRequest = z
  .looseObject({ jsonrpc: z.literal('2.0'), method: z.string(), id: z.union([z.string(), z.number()]).optional(), params: z.unknown().optional() })
  .meta({ id: 'JsonRpcRequest' });

export function describeStreamingRoutes(api: ApiApp): void {
  const registry = api.openAPIRegistry;
  registry.registerPath({
    method: 'get',
    path: '/agents/{id}/events',
    tags: ['events'],
    summary: "The agent's AG-UI events across turns, as SSE, for as long as the client listens",
    description:
      'From `Last-Event-ID`, or after `?after=<seq>` (0: the whole history first), or from now. A client that does not read is not buffered for: the stream waits for it, and one that stays behind is closed (it resumes with its last id).',
    request: {
      params: AgentPath,
      query: z.object({ after: z.coerce.number().int().nonnegative().optional().describe('Start after this entry (0: replay the whole history).') }),
      headers: LastEventId,
    },
    responses: { 200: SSE('The event stream.'), ...errorResponses(404) },
  });
  const agUi = {
    tags: ['events'],
    request: { body: jsonBody(RunAgentInput), headers: LastEventId },
    responses: { 200: SSE("The run's AG-UI events, RUN_STARTED to RUN_FINISHED (or RUN_ERROR)."), ...errorResponses(403, 404, 409, 413, 415) },
  };
  registry.registerPath({
    method: 'post',
    path: '/agents/{id}/ag-ui',
    summary: 'An AG-UI run on this agent: its newest user message is the input; the answer streams back',
    ...agUi,
    request: { ...agUi.request, params: AgentPath },
  });
  registry.registerPath({
    method: 'post',
    path: '/ag-ui',
    summary: 'An AG-UI run on the agent named by threadId (for clients that post every run to one URL)',
    ...agUi,
  });
  registry.registerPath({
    method: 'post',
    path: '/mcp',
    tags: ['mcp'],
    summary: 'The agents as an MCP server (Streamable HTTP, stateless): tools list_agents, send_message, get_state, approve_tool_call',
    request: { body: jsonBody(JsonRpcRequest) },
    responses: {
      200: {
        description: 'The JSON-RPC answer, as JSON or as SSE (as the MCP transport chooses).',
        content: { 'application/json': { schema: z.looseObject({ jsonrpc: z.literal('2.0') }) }, 'text/event-stream': { schema: z.string() } },
      },
      403: jsonResponse(
        z.looseObject({ jsonrpc: z.literal('2.0'), error: z.looseObject({ code: z.number(), message: z.string() }) }),
        "An Origin that is neither the gateway's own nor allowed by CORS.",
      ),
      ...errorResponses(),
    },
  });
  registry.registerPath({
    method: 'get',
    path: '/healthz',
    tags: ['gateway'],
    summary: 'The gateway is up (it asks nothing of Temporal); needs no token',
    security: [],
    responses: { 200: jsonResponse(z.object({ ok: z.literal(true) }), 'Up.') },
  });
}
