/**
 * Every agent as an A2A agent (protocol 1.0, JSON-RPC binding, through @a2a-js/sdk's transport):
 *
 * - `GET /a2a/agents/{id}/.well-known/agent-card.json`: the agent's card;
 * - `POST /a2a/agents/{id}`: its JSON-RPC endpoint (SendMessage, SendStreamingMessage as SSE, GetTask,
 *   CancelTask, SubscribeToTask; and A2A 0.3's message/send, message/stream, tasks/get, tasks/cancel,
 *   tasks/resubscribe for a client that sends no A2A-Version header, through the SDK's compat layer);
 * - `GET /.well-known/agent-card.json`: the card of the gateway's default agent (`a2aDefaultAgent`), when set.
 *
 * The gateway's bearer tokens guard these routes as they guard REST (the default agent's card excepted:
 * discovery needs it before a client has a token).
 */
import { AGENT_CARD_PATH, A2A_VERSION_HEADER, AgentCard } from '@a2a-js/sdk';
import { A2A_LEGACY_PROTOCOL_VERSION } from '@a2a-js/sdk/compat/v0_3';
import { LegacyJsonRpcTransportHandler } from '@a2a-js/sdk/compat/v0_3/server';
import { type A2ARequestHandler, JsonRpcTransportHandler, defaultServerCallContextBuilder, validateVersion } from '@a2a-js/sdk/server';
import { WorkflowNotFoundError } from '@temporalio/client';
import type { Context, Hono } from 'hono';
import type { AgentClient } from '../../client/agent-client';
import { pushSecret } from '../../common/push-seal';
import { agentCard } from '../a2a/agent-card';
import { AgentRequestHandler } from '../a2a/agent-request-handler';
import type { GatewayEnv, GatewayOptions } from '../gateway-app';
import { HttpError } from '../http-errors';

/** The card's version: what an agent offers changes with its configuration, which the card reads anew each time. */
const CARD_VERSION = '1.0.0';

export interface A2aRouteOptions extends Pick<GatewayOptions, 'agents' | 'tokens' | 'log' | 'openStreams'> {
  /** The agent `/.well-known/agent-card.json` describes; none: that path answers 404. */
  a2aDefaultAgent?: string;
  /** How often A2A streams look at the agent (default A2A_POLL_MS). */
  a2aPollMs?: number;
}

/** The gateway's URL as the client reached it (the card names endpoints under it). */
const baseUrl = (c: Context<GatewayEnv>) => new URL(c.req.url).origin;

async function cardOf(agents: AgentClient, agentId: string, c: Context<GatewayEnv>, bearer: boolean): Promise<AgentCard> {
  try {
    return agentCard(agentId, await agents.state(agentId), baseUrl(c), bearer, CARD_VERSION, pushSecret() !== undefined);
  } catch (err) {
    if (err instanceof WorkflowNotFoundError) throw new HttpError(404, 'AGENT_NOT_FOUND', `No agent ${agentId}.`);
    throw err;
  }
}

export function mountA2aRoutes(app: Hono<GatewayEnv>, options: A2aRouteOptions): void {
  const bearer = options.tokens.length > 0;
  const log = options.log ?? ((m: string) => console.error(m));
  const serveCard = async (c: Context<GatewayEnv>, agentId: string) => {
    const card = await cardOf(options.agents, agentId, c, bearer);
    c.header('Cache-Control', 'no-cache');
    return c.json(AgentCard.toJSON(card) as object);
  };

  app.get(`/${AGENT_CARD_PATH}`, async (c) => {
    if (!options.a2aDefaultAgent) {
      throw new HttpError(
        404,
        'NO_DEFAULT_AGENT',
        'This gateway has no default A2A agent (LIVECONTEXT_A2A_AGENT); each agent has a card at /a2a/agents/{id}/.well-known/agent-card.json.',
      );
    }
    return serveCard(c, options.a2aDefaultAgent);
  });
  app.get(`/a2a/agents/:agentId/${AGENT_CARD_PATH}`, (c) => serveCard(c, c.req.param('agentId')));

  app.post('/a2a/agents/:agentId', async (c) => {
    const agentId = c.req.param('agentId');
    const handler: A2ARequestHandler = new AgentRequestHandler(
      options.agents,
      agentId,
      () => cardOf(options.agents, agentId, c, bearer),
      options.a2aPollMs,
      c.req.raw.signal,
    );
    const context = defaultServerCallContextBuilder({
      extensions: undefined,
      user: { isAuthenticated: c.var.scope !== 'open', userName: c.var.scope === 'open' ? '' : 'token' },
      headers: Object.fromEntries(c.req.raw.headers),
      requestedVersion: c.req.header(A2A_VERSION_HEADER) || undefined,
    });
    const body = await c.req.text();
    const requestId = rpcId(body);
    // As the SDK's server: no A2A-Version header, or 0.3, is an A2A 0.3 client (message/send, tasks/get…).
    const legacy = context.requestedVersion === A2A_LEGACY_PROTOCOL_VERSION;
    const mapError = (err: unknown) => (legacy ? LegacyJsonRpcTransportHandler.mapToLegacyJSONRPCError(err) : JsonRpcTransportHandler.mapToJSONRPCError(err));
    const failure = (err: unknown) => c.json({ jsonrpc: '2.0', id: requestId, error: mapError(err) });
    let response;
    try {
      validateVersion(context.requestedVersion, await handler.getAgentCard(), 'JSONRPC');
      response = await (legacy ? new LegacyJsonRpcTransportHandler(handler) : new JsonRpcTransportHandler(handler)).handle(body, context);
    } catch (err) {
      if (err instanceof HttpError) throw err;
      return failure(err);
    }
    if (!(Symbol.asyncIterator in response)) return c.json(response);
    // As the SDK's own server: an error before the first event is a plain JSON-RPC error, not a stream.
    let first: IteratorResult<unknown>;
    try {
      first = await response.next();
    } catch (err) {
      return failure(err);
    }
    return sseResponse(first, response, requestId, mapError, log, options.openStreams);
  });
}

/** The id of a JSON-RPC request body, for an error about it (null when unreadable). */
function rpcId(body: string): string | number | null {
  try {
    const id = (JSON.parse(body) as { id?: unknown }).id;
    return typeof id === 'string' || typeof id === 'number' ? id : null;
  } catch {
    return null;
  }
}

/** JSON-RPC responses as SSE `data:` frames (as the SDK's Express handler writes them), until the stream ends or the client leaves. */
function sseResponse(
  first: IteratorResult<unknown>,
  stream: AsyncGenerator<unknown, void, undefined>,
  id: string | number | null,
  mapError: (err: unknown) => unknown,
  log: (m: string) => void,
  open?: Set<Promise<void>>,
): Response {
  const encoder = new TextEncoder();
  let done!: () => void;
  const finished = new Promise<void>((resolve) => (done = resolve));
  open?.add(finished);
  let pending: IteratorResult<unknown> | undefined = first;
  const body = new ReadableStream<Uint8Array>({
    async pull(controller) {
      try {
        const next = pending ?? (await stream.next());
        pending = undefined;
        if (next.done) {
          controller.close();
          done();
        } else controller.enqueue(encoder.encode(`data: ${JSON.stringify(next.value)}\n\n`));
      } catch (err) {
        log(`gateway: A2A stream: ${(err as Error).stack ?? String(err)}`);
        const error = mapError(err);
        controller.enqueue(encoder.encode(`event: error\ndata: ${JSON.stringify({ jsonrpc: '2.0', id, error })}\n\n`));
        controller.close();
        done();
      }
    },
    async cancel() {
      await stream.return(undefined).catch(() => undefined);
      done();
    },
  });
  void finished.then(() => open?.delete(finished));
  return new Response(body, {
    headers: { 'Content-Type': 'text/event-stream', 'Cache-Control': 'no-cache', Connection: 'keep-alive', 'X-Accel-Buffering': 'no' },
  });
}
